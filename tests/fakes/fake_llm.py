"""In-process fakes of the LLM ports, for unit tests of code that uses them.

`ScriptedChat` is a `ChatModel` whose replies (or failures) are scripted; `InMemoryLedger`
keeps the `llm_usage` rows in a list (`units` hands out in-memory units of work over it);
`ScriptedLanguageModel` is a whole `LanguageModel` answering scripted JSON objects or texts in
order (None when the script is empty, like a model that is off or over budget).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.llm.domain.llm_budget import Spend
from chalicelib.llm.services.ports import ChatFailed, ChatReply, FailureKind


@dataclass
class ChatCall:
    system: str
    user: str
    schema: dict[str, Any] | None
    max_tokens: int


class ScriptedChat:
    def __init__(self, model: str = "gpt-4o-mini") -> None:
        self.model = model
        self.calls: list[ChatCall] = []
        self._script: deque[ChatReply | ChatFailed] = deque()

    def reply(self, content: str | None, prompt_tokens: int = 100, completion_tokens: int = 50) -> None:
        self._script.append(ChatReply(content, prompt_tokens, completion_tokens))

    def fail(self, kind: FailureKind, attempts: int = 1) -> None:
        self._script.append(ChatFailed(kind, f"scripted {kind}", attempts))

    def chat(self, system: str, user: str, *, schema: dict[str, Any] | None, schema_name: str,
             max_tokens: int, temperature: float) -> ChatReply:
        self.calls.append(ChatCall(system, user, schema, max_tokens))
        scripted = self._script.popleft() if self._script else ChatReply("{}", 10, 2)
        if isinstance(scripted, ChatFailed):
            raise scripted
        return scripted


@dataclass
class LedgerRow:
    purpose: str
    model: str
    status: str
    reserved_tokens: int
    reserved_usd: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    attempts: int = 0
    detail: str | None = None


@dataclass
class InMemoryLedger:
    """The `UsageRecords` port over a list (the lock is a no-op: one thread, one decision)."""

    rows: list[LedgerRow] = field(default_factory=list)

    def units(self) -> InMemoryLlmUnitOfWork:
        return InMemoryLlmUnitOfWork(self)

    def lock_budget(self) -> None:
        return None

    def spent_today(self) -> Spend:
        usd = sum(r.reserved_usd if r.status == "pending" else r.cost_usd for r in self.rows)
        tokens = sum(r.reserved_tokens if r.status == "pending" else r.prompt_tokens + r.completion_tokens
                     for r in self.rows)
        return Spend(usd=usd, tokens=tokens)

    def reserve(self, purpose: str, model: str, tokens: int, usd: float) -> int:
        self.rows.append(LedgerRow(purpose, model, "pending", tokens, usd))
        return len(self.rows) - 1

    def skip(self, purpose: str, model: str, reason: str) -> None:
        self.rows.append(LedgerRow(purpose, model, "skipped", 0, 0.0, detail=reason))

    def settle(self, usage_id: int, *, status: str, prompt_tokens: int, completion_tokens: int,
               cost_usd: float, attempts: int, detail: str | None = None) -> None:
        row = self.rows[usage_id]
        row.status, row.prompt_tokens, row.completion_tokens = status, prompt_tokens, completion_tokens
        row.cost_usd, row.attempts, row.detail = cost_usd, attempts, detail

    def by_day_and_purpose(self, days: int) -> list[dict[str, Any]]:
        return []


class InMemoryLlmUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, usage: InMemoryLedger) -> None:
        super().__init__()
        self.usage = usage


class ScriptedLanguageModel:
    """A LanguageModel answering from a script; records (purpose, user prompt) of each call."""

    enabled = True
    model = "scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self._script: deque[dict[str, Any] | str | None] = deque()

    def answer(self, value: dict[str, Any] | str | None) -> None:
        self._script.append(value)

    def complete_json(self, purpose: str, system: str, user: str, schema: dict[str, Any], *,
                      max_tokens: int = 1000, temperature: float = 0.2) -> dict[str, Any] | None:
        self.calls.append((purpose, user))
        value = self._script.popleft() if self._script else None
        return value if isinstance(value, dict) else None

    def complete_text(self, purpose: str, system: str, user: str, *,
                      max_tokens: int = 1000, temperature: float = 0.5) -> str | None:
        self.calls.append((purpose, user))
        value = self._script.popleft() if self._script else None
        return value if isinstance(value, str) else None
