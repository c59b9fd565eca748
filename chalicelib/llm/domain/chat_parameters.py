"""Which request parameters a chat model accepts: the output-token cap's name and the temperature.

OpenAI's reasoning models (the o-series and gpt-5) refuse `max_tokens` (they take
`max_completion_tokens`, which also covers their hidden reasoning) and any temperature but the
default; older chat models and most OpenAI-compatible servers take `max_tokens` and a
temperature. The family is read from the model's name (a provider prefix such as `openai/` is
ignored). A model this table does not know is learned at run time instead: a 400 naming one of
these parameters flips it (`adapted`), and the call is made again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

_REASONING = re.compile(r"^(?:o\d+|gpt-5)(?:[-.]|$)")


@dataclass(frozen=True)
class ChatParameters:
    token_cap: str = "max_tokens"  # or "max_completion_tokens"
    temperature: bool = True

    def options(self, max_tokens: int, temperature: float) -> dict[str, Any]:
        """The request fields for this model's output cap and temperature."""
        options: dict[str, Any] = {self.token_cap: max_tokens}
        if self.temperature:
            options["temperature"] = temperature
        return options

    def adapted(self, rejected: str | None) -> ChatParameters | None:
        """These parameters without the one a 400 named, or None when that changes nothing."""
        if rejected == "max_tokens" and self.token_cap == "max_tokens":
            return replace(self, token_cap="max_completion_tokens")
        if rejected == "max_completion_tokens" and self.token_cap == "max_completion_tokens":
            return replace(self, token_cap="max_tokens")
        if rejected == "temperature" and self.temperature:
            return replace(self, temperature=False)
        return None


def parameters_for(model: str) -> ChatParameters:
    """What to send to `model` before anything has been learned about it."""
    name = model.rsplit("/", 1)[-1].lower()
    if _REASONING.match(name):
        return ChatParameters(token_cap="max_completion_tokens", temperature=False)
    return ChatParameters()
