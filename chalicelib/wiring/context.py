"""The prompt context: one pipeline for the prompt hook's search route and the console's preview."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.context.services.prompt_context import PromptContext


class ContextWiring(CoreWiring):
    @cached_property
    def prompt_context(self) -> PromptContext:
        from chalicelib.context.services.prompt_context import PromptContext
        from chalicelib.graph.services.graph_store import PROMPT_DELAY_S

        def learn(project: str, prompt: str) -> None:  # the graph's store is built on the first prompt
            self.graph_store.submit(project, prompt, "user", {"via": "prompt"}, delay_s=PROMPT_DELAY_S)

        return PromptContext(self.memory, lambda project, prompt: self.graph_retrieve.fast(project, prompt),
                             learn, self.settings.stale_after_days)
