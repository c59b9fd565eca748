"""The prompt context: one pipeline for the prompt hook's search route and the console's preview."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import context as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.context")


def _prompt_context(c: Container) -> kit.PromptContext:
    def learn(project: str, prompt: str) -> None:  # the graph's store is built on the first prompt
        c.graph_store.submit(project, prompt, "user", {"via": "prompt"}, delay_s=kit.PROMPT_DELAY_S)

    return kit.PromptContext(c.memory, lambda project, prompt: c.graph_retrieve.fast(project, prompt),
                             learn, c.settings.stale_after_days)


class ContextWiring(CoreWiring):
    prompt_context: kit.PromptContext = provide(_prompt_context)
