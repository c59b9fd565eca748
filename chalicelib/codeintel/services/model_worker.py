"""The shape every model-assisted code-intelligence worker shares."""

from __future__ import annotations

from chalicelib.codeintel.services.ports import CodeIntelUnits
from chalicelib.codeintel.services.publisher import Publisher
from chalicelib.llm.services.ports import LanguageModel


class ModelWorker:
    """Reads through `units`, writes its products through `publisher`, and asks `llm` (when it is
    enabled) to word what the rules found."""

    def __init__(self, units: CodeIntelUnits, publisher: Publisher, llm: LanguageModel) -> None:
        self._units, self._publisher, self._llm = units, publisher, llm

    def _worded(self, purpose: str, system: str, user: str, field: str, max_chars: int) -> str | None:
        """The model's `field` as one line of at most `max_chars`; None when the model is off, fails
        or answers nothing."""
        if not self._llm.enabled:
            return None
        schema = {"type": "object", "properties": {field: {"type": "string"}}, "required": [field],
                  "additionalProperties": False}
        answer = self._llm.complete_json(purpose, system, user, schema, max_tokens=120)
        return " ".join(str((answer or {}).get(field) or "").split())[:max_chars] or None
