"""What the real OpenAI chat API refuses, per model, for the fake server to refuse the same way.

Written from the API's documented behaviour, independently of Itachi's own table
(`chalicelib.llm.domain.chat_parameters`), so a test against the fake checks Itachi's table
instead of agreeing with it by construction:

- reasoning models (o1, o3, o3-mini, o4-mini, gpt-5 and its sizes) refuse `max_tokens` ("Use
  'max_completion_tokens' instead") and any `temperature` other than 1;
- a model without structured outputs (gpt-3.5-turbo) refuses `response_format: json_schema`;
- a strict JSON schema must list every property in `required` and set
  `additionalProperties: false` on every object, and its name must match ^[a-zA-Z0-9_-]{1,64}$;
- an unknown model is a 404 (`model_not_found`);
- unknown arguments, malformed `tools` and tool messages out of order (`openai_message_rules`).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

REASONING = frozenset({"o1", "o3", "o3-mini", "o4-mini", "gpt-5", "gpt-5-mini", "gpt-5-nano"})
CLASSIC = frozenset({"gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-3.5-turbo"})
NO_STRUCTURED_OUTPUT = frozenset({"gpt-3.5-turbo"})
_SCHEMA_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class Refusal(NamedTuple):
    """A 4xx as the real API words it: status, message, param and code."""

    status: int
    message: str
    param: str | None
    code: str | None


def check_chat_request(request: dict[str, Any]) -> Refusal | None:
    """The error the real API would answer `request` with, or None when it is acceptable."""
    model = str(request.get("model"))
    if model not in REASONING | CLASSIC:
        return Refusal(404, f"The model `{model}` does not exist or you do not have access to it.",
                       None, "model_not_found")
    if model in REASONING and "max_tokens" in request:
        return Refusal(400, "Unsupported parameter: 'max_tokens' is not supported with this model. "
                            "Use 'max_completion_tokens' instead.", "max_tokens", "unsupported_parameter")
    if model in REASONING and request.get("temperature", 1) != 1:
        return Refusal(400, f"Unsupported value: 'temperature' does not support {request['temperature']} "
                            "with this model. Only the default (1) value is supported.",
                       "temperature", "unsupported_value")
    for name in ("max_tokens", "max_completion_tokens"):
        value = request.get(name)
        if value is not None and (not isinstance(value, int) or value < 1):
            return Refusal(400, f"Invalid '{name}': integer below minimum value.", name,
                           "integer_below_min_value")
    return _check_response_format(model, request.get("response_format"))


def output_cap(request: dict[str, Any]) -> int | None:
    """The request's cap on completion tokens, whichever name carries it."""
    return request.get("max_completion_tokens") or request.get("max_tokens")


def _check_response_format(model: str, response_format: Any) -> Refusal | None:
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    if model in NO_STRUCTURED_OUTPUT:
        return Refusal(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported "
                            "with this model.", "response_format", None)
    spec = response_format.get("json_schema") or {}
    if not _SCHEMA_NAME.match(str(spec.get("name", ""))):
        return Refusal(400, "Invalid 'response_format.json_schema.name': string does not match pattern.",
                       "response_format.json_schema.name", "invalid_value")
    problem = _strict_problem(spec.get("schema"), ()) if spec.get("strict") else None
    if problem:
        return Refusal(400, f"Invalid schema for response_format '{spec['name']}': {problem}",
                       "response_format", None)
    return None


def _strict_problem(schema: Any, path: tuple[str, ...]) -> str | None:
    if not isinstance(schema, dict):
        return None
    where = f"In context=({', '.join(repr(p) for p in path)})"
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            return f"{where}, 'additionalProperties' is required to be supplied and to be false."
        properties = schema.get("properties") or {}
        missing = [key for key in properties if key not in (schema.get("required") or [])]
        if missing:
            return (f"{where}, 'required' is required to be supplied and to be an array including every "
                    f"key in properties. Missing '{missing[0]}'.")
        for key, sub in properties.items():
            if problem := _strict_problem(sub, (*path, "properties", key)):
                return problem
    if schema.get("type") == "array":
        return _strict_problem(schema.get("items"), (*path, "items"))
    return None
