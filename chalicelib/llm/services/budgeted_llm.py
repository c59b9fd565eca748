"""The LanguageModel the container hands out: budget first, then the call, then the bill.

Before each call the worst case (estimated prompt + `max_tokens` of output) is reserved against
the day's budget; a call that does not fit is skipped with a warning naming the purpose and the
cap, and answers None. After the call the reservation is settled to the tokens the provider
reported. A timed-out call keeps its reservation as its cost (the provider may have billed it).

Nothing degrades silently: a call that fails (`error`, `timeout`, `rejected` by a 400), a
refusal (`refused`: the model declined, or its output was filtered), an answer cut by the
output cap (`truncated`: finish_reason "length") and an answer that is not the JSON asked for
(`malformed`) each answer None, are logged as a warning with the purpose, and are counted as
failed in `llm_usage` (`itachi usage`).
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.domain.llm_budget import DailyBudget, cost_usd, estimate_prompt_tokens
from chalicelib.llm.services.ports import ChatFailed, ChatModel, ChatReply, LlmUnits, ToolChatModel, ToolTurn
from chalicelib.llm.services.usage_budget import BudgetedCalls

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class DisabledLlm:
    """No model configured: every call answers None at once, and nothing is recorded."""

    enabled = False
    model = ""

    def complete_json(self, purpose: str, system: str, user: str, schema: dict[str, Any], *,
                      max_tokens: int = 1000, temperature: float = 0.2) -> dict[str, Any] | None:
        return None

    def complete_text(self, purpose: str, system: str, user: str, *,
                      max_tokens: int = 1000, temperature: float = 0.5) -> str | None:
        return None

    def complete_tools(self, purpose: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                       max_tokens: int = 800, temperature: float = 0.0) -> ToolTurn | None:
        return None


class BudgetedLlm(BudgetedCalls):
    def __init__(self, chat: ChatModel, units: LlmUnits, budget: DailyBudget) -> None:
        super().__init__(units, budget)
        self._chat = chat

    @property
    def model(self) -> str:
        return self._chat.model

    def complete_json(self, purpose: str, system: str, user: str, schema: dict[str, Any], *,
                      max_tokens: int = 1000, temperature: float = 0.2) -> dict[str, Any] | None:
        return self._call(purpose, system, user, schema, max_tokens, temperature)  # type: ignore[return-value]

    def complete_text(self, purpose: str, system: str, user: str, *,
                      max_tokens: int = 1000, temperature: float = 0.5) -> str | None:
        return self._call(purpose, system, user, None, max_tokens, temperature)  # type: ignore[return-value]

    def complete_tools(self, purpose: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                       max_tokens: int = 800, temperature: float = 0.0) -> ToolTurn | None:
        """One turn of a tool-calling conversation, budgeted and recorded like any other call."""
        chat = self._chat
        if not hasattr(chat, "chat_tools"):
            return None
        model = chat.model
        prompt = estimate_prompt_tokens(json.dumps(messages), json.dumps(tools))
        worst_usd = cost_usd(model, prompt, max_tokens)
        usage_id = self._reserve(purpose, model, prompt + max_tokens, worst_usd)
        if usage_id is None:
            return None
        try:
            reply = cast(ToolChatModel, chat).chat_tools(messages, tools, max_tokens=max_tokens,
                                                         temperature=temperature)
        except ChatFailed as exc:
            timed_out = exc.kind == "timeout"
            self._settle(usage_id, status="timeout" if timed_out else "error",
                         prompt_tokens=prompt if timed_out else 0, completion_tokens=0,
                         cost_usd=worst_usd if timed_out else 0.0, attempts=exc.attempts,
                         detail=f"{exc.kind}: {exc}")
            get_logger().warning("LLM tool call failed; the caller falls back",
                                 extra={"purpose": purpose, "model": model, "failure": exc.kind})
            return None
        usable = bool(reply.tool_calls) or bool((reply.content or "").strip())
        status = "truncated" if reply.finish_reason == "length" and not reply.tool_calls else (
            "ok" if usable else "malformed")
        self._settle(usage_id, status=status, prompt_tokens=reply.prompt_tokens,
                     completion_tokens=reply.completion_tokens,
                     cost_usd=cost_usd(model, reply.prompt_tokens, reply.completion_tokens),
                     attempts=reply.attempts, detail=_FAILURES.get(status))
        return ToolTurn(reply.content, reply.tool_calls) if status == "ok" else None

    def _call(self, purpose: str, system: str, user: str, schema: dict[str, Any] | None,
              max_tokens: int, temperature: float) -> dict[str, Any] | str | None:
        log = get_logger()
        model = self._chat.model
        prompt = estimate_prompt_tokens(system, user, json.dumps(schema) if schema else "")
        worst_usd = cost_usd(model, prompt, max_tokens)
        usage_id = self._reserve(purpose, model, prompt + max_tokens, worst_usd)
        if usage_id is None:
            return None
        try:
            reply = self._chat.chat(system, user, schema=schema, schema_name=_schema_name(purpose),
                                    max_tokens=max_tokens, temperature=temperature)
        except ChatFailed as exc:
            timed_out = exc.kind == "timeout"
            status = "timeout" if timed_out else "rejected" if exc.kind == "rejected" else "error"
            self._settle(usage_id, status=status,
                         prompt_tokens=prompt if timed_out else 0, completion_tokens=0,
                         cost_usd=worst_usd if timed_out else 0.0, attempts=exc.attempts,
                         detail=f"{exc.kind}: {exc}")
            log.warning("LLM call failed; the caller falls back",
                        extra={"purpose": purpose, "model": model, "failure": exc.kind,
                               "attempts": exc.attempts, "detail": str(exc)[:300]})
            return None
        except Exception:
            self._settle(usage_id, status="error", prompt_tokens=0, completion_tokens=0,
                         cost_usd=0.0, attempts=1, detail="unexpected error")
            raise
        status, answer = _judge(reply, schema is not None)
        self._settle(
            usage_id, status=status,
            prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
            cost_usd=cost_usd(model, reply.prompt_tokens, reply.completion_tokens),
            attempts=reply.attempts, detail=_FAILURES.get(status))
        if answer is None:
            log.warning(f"LLM answer unusable ({_FAILURES[status]}); the caller falls back",
                        extra={"purpose": purpose, "model": model, "status": status,
                               "finish_reason": reply.finish_reason})
        return answer


_FAILURES = {
    "refused": "the model refused or its output was filtered",
    "truncated": "the answer was cut by the output token cap (finish_reason: length)",
    "malformed": "not the JSON object asked for",
}


def _judge(reply: ChatReply, as_json: bool) -> tuple[str, dict[str, Any] | str | None]:
    """(usage status, usable answer or None) for a reply the provider completed."""
    if reply.refusal or reply.finish_reason == "content_filter":
        return "refused", None
    if reply.finish_reason == "length":
        return "truncated", None
    answer = _parse(reply.content, as_json)
    return ("ok" if answer is not None else "malformed"), answer


def _parse(content: str | None, as_json: bool) -> dict[str, Any] | str | None:
    if content is None or not content.strip():
        return None
    if not as_json:
        return content.strip()
    fenced = _FENCE.match(content)
    try:
        value = json.loads(fenced.group(1) if fenced else content)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _schema_name(purpose: str) -> str:
    """Structured-output names allow [a-zA-Z0-9_-] only."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", purpose)[:64] or "answer"
