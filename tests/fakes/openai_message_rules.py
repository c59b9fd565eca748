"""What the real OpenAI chat API refuses in a request's shape: unknown arguments, malformed
`tools`, and tool messages out of order; worded as the real API words them.

- an argument the endpoint does not know: "Unrecognized request argument supplied: NAME";
- `tools` must be a list of `{"type": "function", "function": {"name", "description"?,
  "parameters"?}}`, the name matching ^[a-zA-Z0-9_-]{1,64}$ and the parameters a JSON schema
  of type object;
- a `tool` message must answer a `tool_calls` id of the assistant message just before it (or
  of the run of tool messages after it), and every id of an assistant's `tool_calls` must be
  answered by the tool messages that follow it, before any other message.
"""

from __future__ import annotations

import re
from typing import Any

from tests.fakes.openai_rules import Refusal

CHAT_ARGUMENTS = frozenset({
    "model", "messages", "audio", "frequency_penalty", "function_call", "functions", "logit_bias",
    "logprobs", "max_completion_tokens", "max_tokens", "metadata", "modalities", "n",
    "parallel_tool_calls", "prediction", "presence_penalty", "prompt_cache_key", "reasoning_effort",
    "response_format", "safety_identifier", "seed", "service_tier", "stop", "store", "stream",
    "stream_options", "temperature", "tool_choice", "tools", "top_logprobs", "top_p", "user",
    "verbosity", "web_search_options",
})
_FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def check_chat_shape(request: dict[str, Any]) -> Refusal | None:
    """The first refusal for the request's arguments, tools or message order, or None."""
    return (check_arguments(request) or check_tools(request.get("tools"))
            or check_tool_order(request["messages"]))


def check_arguments(request: dict[str, Any]) -> Refusal | None:
    """Refuse the first argument the chat endpoint does not know."""
    unknown = sorted(set(request) - CHAT_ARGUMENTS)
    if unknown:
        return _bad(f"Unrecognized request argument supplied: {unknown[0]}", None)
    return None


def check_tools(tools: Any) -> Refusal | None:
    """Refuse a malformed `tools` list."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        return _bad("Invalid type for 'tools': expected an array, but got an object instead.", "tools",
                    "invalid_type")
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict):
            return _bad(f"Invalid type for '{where}': expected an object.", where, "invalid_type")
        if tool.get("type") != "function":
            return _bad(f"Invalid value: '{tool.get('type')}'. Supported values are: 'function' and "
                        "'custom'.", f"{where}.type", "invalid_value")
        function = tool.get("function")
        if not isinstance(function, dict) or "name" not in function:
            return _bad(f"Missing required parameter: '{where}.function.name'.", f"{where}.function.name",
                        "missing_required_parameter")
        if not isinstance(function["name"], str) or not _FUNCTION_NAME.match(function["name"]):
            return _bad(f"Invalid '{where}.function.name': string does not match pattern. Expected a "
                        "string that matches the pattern '^[a-zA-Z0-9_-]+$'.", f"{where}.function.name",
                        "invalid_value")
        parameters = function.get("parameters", {"type": "object"})
        if not isinstance(parameters, dict) or parameters.get("type") != "object":
            kind = parameters.get("type") if isinstance(parameters, dict) else None
            return _bad(f"Invalid schema for function '{function['name']}': schema must be a JSON "
                        f"Schema of 'type: \"object\"', got 'type: \"{kind}\"'.",
                        f"{where}.function.parameters", "invalid_function_parameters")
    return None


def check_tool_order(messages: list[Any]) -> Refusal | None:
    """Refuse tool messages that answer no pending call, and calls left unanswered."""
    pending: dict[str, int] = {}  # call id -> index of the assistant message that made it
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                return _bad("Invalid parameter: messages with role 'tool' must be a response to a "
                            "preceeding message with 'tool_calls'.", f"messages.[{index}].role")
            del pending[call_id]
            continue
        if pending:
            return _unanswered(pending)
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                pending[str(call.get("id") if isinstance(call, dict) else None)] = index
    return _unanswered(pending) if pending else None


def _unanswered(pending: dict[str, int]) -> Refusal:
    ids = ", ".join(sorted(pending))
    return _bad("An assistant message with 'tool_calls' must be followed by tool messages responding "
                "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                f"{ids}", f"messages.[{min(pending.values())}].role")


def _bad(message: str, param: str | None, code: str | None = None) -> Refusal:
    return Refusal(400, message, param, code)
