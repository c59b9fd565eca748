"""What the real Anthropic Messages API refuses before answering, worded as it words it.

- no `x-api-key` and no `Authorization: Bearer` header: 401 authentication_error;
- no `anthropic-version` header: 400 invalid_request_error;
- a body that is not `Content-Type: application/json`: 400 invalid_request_error;
- every `tool_use` of an assistant turn must be answered by a `tool_result` in the user turn
  right after it, and every `tool_result` must answer a `tool_use` of the assistant turn right
  before it: 400 invalid_request_error naming the message and the ids.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Refusal(NamedTuple):
    status: int
    error_type: str
    message: str


def check_headers(method: str, headers: dict[str, str]) -> Refusal | None:
    """The refusal for missing or wrong headers on an API call, or None."""
    lower = {name.lower(): value for name, value in headers.items()}
    bearer = lower.get("authorization", "").startswith("Bearer ") and len(lower["authorization"]) > 7
    if not lower.get("x-api-key") and not bearer:
        return Refusal(401, "authentication_error", "x-api-key header is required")
    if not lower.get("anthropic-version"):
        return Refusal(400, "invalid_request_error", "anthropic-version: header is required")
    if method == "POST" and lower.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        return Refusal(400, "invalid_request_error", "Content-Type must be application/json")
    return None


def check_tool_pairing(messages: Any) -> Refusal | None:
    """The refusal for a tool_use left unanswered or a tool_result answering nothing, or None."""
    if not isinstance(messages, list):
        return None
    asked: list[str] = []  # the tool_use ids of the assistant turn just before
    for index, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        answered = [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]
        unexpected = [i for i in answered if i not in asked]
        if unexpected:
            where = next(n for n, b in enumerate(blocks) if b.get("type") == "tool_result"
                         and str(b.get("tool_use_id")) in unexpected)
            return Refusal(400, "invalid_request_error",
                           f"messages.{index}.content.{where}: unexpected `tool_use_id` found in "
                           f"`tool_result` blocks: {', '.join(unexpected)}. Each `tool_result` block must "
                           "have a corresponding `tool_use` block in the previous message.")
        missing = [i for i in asked if i not in answered]
        if missing:
            return _unanswered(index - 1, missing)
        role = message.get("role") if isinstance(message, dict) else None
        asked = [str(b.get("id")) for b in blocks if b.get("type") == "tool_use" and role == "assistant"]
    return _unanswered(len(messages) - 1, asked) if asked else None


def _unanswered(index: int, ids: list[str]) -> Refusal:
    return Refusal(400, "invalid_request_error",
                   f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
                   f"after: {', '.join(ids)}. Each `tool_use` block must have a corresponding `tool_result` "
                   "block in the next message.")
