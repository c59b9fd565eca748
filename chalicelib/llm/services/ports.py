"""The LLM ports.

`LanguageModel` is what services use (insight extraction, reflection, the Telegram bot): every
call names its purpose, is checked against the daily budget before it is made, is recorded in
`llm_usage`, and answers None instead of raising when the model is off, over budget, slow,
failing or returns unusable output. Callers always have a fallback for None.

`ChatModel` is the narrow provider port the budgeted model drives; `OpenAIChat` implements it.
`UsageRecords` is the `llm_usage` table, bound to a unit of work (`LlmUnitOfWork`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.llm.domain.llm_budget import Spend

FailureKind = Literal["error", "timeout", "rate_limited", "rejected"]  # rejected: a 400


class LanguageModel(Protocol):
    @property
    def enabled(self) -> bool:
        """True when a model is configured (calls may still be skipped by the budget)."""
        ...

    @property
    def model(self) -> str: ...

    def complete_json(self, purpose: str, system: str, user: str, schema: dict[str, Any], *,
                      max_tokens: int = 1000, temperature: float = 0.2) -> dict[str, Any] | None:
        """Answer with a JSON object shaped by `schema` (a JSON Schema), or None."""
        ...

    def complete_text(self, purpose: str, system: str, user: str, *,
                      max_tokens: int = 1000, temperature: float = 0.5) -> str | None:
        """Answer with free text, or None."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for (arguments decoded; {} when they did not parse)."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolTurn:
    """One assistant turn of a tool-calling conversation: text, calls, or both."""

    content: str | None
    tool_calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class ChatReply:
    """One completed chat call: the assistant text and the tokens the provider billed.

    `finish_reason` is the provider's ("stop"; "length" when the output cap cut the answer;
    "content_filter"); `refusal` is the model's refusal message when it declined to answer.
    """

    content: str | None
    prompt_tokens: int
    completion_tokens: int
    attempts: int = 1
    finish_reason: str | None = "stop"
    refusal: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


class ChatFailed(Exception):
    """The provider gave no answer after retries; `kind` says why, `attempts` how many were made."""

    def __init__(self, kind: FailureKind, message: str, attempts: int) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts


class ChatModel(Protocol):
    @property
    def model(self) -> str: ...

    def chat(self, system: str, user: str, *, schema: dict[str, Any] | None, schema_name: str,
             max_tokens: int, temperature: float) -> ChatReply:
        """Make one logical call (retrying rate limits inside); raise ChatFailed if none succeeded."""
        ...


class ToolChatModel(ChatModel, Protocol):
    def chat_tools(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                   max_tokens: int, temperature: float) -> ChatReply:
        """One call of a conversation with function tools (OpenAI message and tool shapes)."""
        ...


class ToolModel(Protocol):
    """A budgeted model that can call tools: a turn, or None (off, over budget, failing)."""

    @property
    def enabled(self) -> bool: ...

    def complete_tools(self, purpose: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                       max_tokens: int = 800, temperature: float = 0.0) -> ToolTurn | None: ...


class UsageRecords(Protocol):
    def lock_budget(self) -> None:
        """Hold the one budget lock until the unit ends: two workers never both take the last dollar."""
        ...

    def spent_today(self) -> Spend:
        """The UTC day's spend: a pending call counts its reservation, a settled one what it used."""
        ...

    def reserve(self, purpose: str, model: str, tokens: int, usd: float) -> int:
        """Record a pending call reserving `tokens` and `usd`; return its id."""
        ...

    def skip(self, purpose: str, model: str, reason: str) -> None:
        """Record a call the budget did not allow."""
        ...

    def settle(self, usage_id: int, *, status: str, prompt_tokens: int, completion_tokens: int,
               cost_usd: float, attempts: int, detail: str | None = None) -> None:
        """Replace a reservation by what the call really used."""
        ...

    def by_day_and_purpose(self, days: int) -> list[dict[str, Any]]:
        """Rows of {day, purpose, calls, skipped, failed, prompt_tokens, completion_tokens, cost_usd},
        newest first."""
        ...


class LlmUnitOfWork(UnitOfWork, Protocol):
    @property
    def usage(self) -> UsageRecords: ...


LlmUnits = Callable[[], LlmUnitOfWork]
