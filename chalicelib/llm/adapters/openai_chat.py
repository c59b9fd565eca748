"""Chat completions over the `openai` SDK, for OpenAI or any OpenAI-compatible server.

The SDK is imported on first use (it costs about 0.3 s of a cold start). Each model is sent the
parameters it accepts (`chalicelib.llm.domain.chat_parameters`: reasoning models get
`max_completion_tokens` and no temperature); a 400 naming one of those parameters teaches this
client what the model takes, and the call is made again. Structured output uses
`response_format: json_schema` (strict); a server that rejects it gets one more call in plain
JSON mode with the schema in the system prompt. Any other 400 fails the call as `rejected`.
Retries are the SDK's own (`max_retries`):
429s, 5xx and connection errors, with exponential backoff, honouring `Retry-After`. A timeout
is not retried, because the server may still be working (and billing) on the first attempt.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.adapters.openai_model import OpenAIModel
from chalicelib.llm.domain.chat_parameters import parameters_for
from chalicelib.llm.domain.llm_budget import estimate_prompt_tokens
from chalicelib.llm.services.ports import ChatFailed, ChatReply, FailureKind, ToolCall


class OpenAIChat(OpenAIModel):
    def __init__(self, *, api_key: str, model: str, base_url: str | None = None,
                 timeout_s: float = 30.0, max_retries: int = 3) -> None:
        super().__init__(api_key=api_key, model=model, base_url=base_url, timeout_s=timeout_s,
                         max_retries=max_retries)
        self._parameters = parameters_for(model)

    def chat(self, system: str, user: str, *, schema: dict[str, Any] | None, schema_name: str,
             max_tokens: int, temperature: float) -> ChatReply:
        import openai

        json_mode = "schema" if schema is not None else "none"
        spent = 0  # attempts of earlier calls (the json_schema one, when a server rejected it)
        while True:
            try:
                reply = self._once(system, user, schema, schema_name, json_mode, max_tokens, temperature)
                return replace(reply, attempts=spent + reply.attempts)
            except openai.BadRequestError as exc:
                spent += _attempts(exc)
                param = getattr(exc, "param", None)
                adapted = self._parameters.adapted(param)
                if adapted is not None:  # the model takes another form of this parameter
                    get_logger().warning("model refused a request parameter; sending what it accepts",
                                         extra={"model": self.model, "param": param})
                    self._parameters = adapted
                    continue
                if json_mode == "schema" and param in (None, "response_format"):
                    json_mode = "object"  # the server may not support json_schema: ask for plain JSON
                    continue
                raise ChatFailed("rejected", f"bad request ({param or 'request'}): {exc.message}",
                                 spent) from None
            except openai.APITimeoutError as exc:
                raise self._failed(exc, spent + _attempts(exc)) from None
            except openai.APIError as exc:
                kind: FailureKind = "rate_limited" if isinstance(exc, openai.RateLimitError) else "error"
                tries = spent + _attempts(exc)
                raise ChatFailed(kind, f"{type(exc).__name__} after {tries} attempt(s)", tries) from None

    def chat_tools(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], *,
                   max_tokens: int, temperature: float) -> ChatReply:
        """One turn of a conversation with function tools; failures raise ChatFailed as `chat`."""
        import openai

        try:
            raw = self._client.get().chat.completions.with_raw_response.create(
                model=self.model, messages=messages, tools=tools,
                **self._parameters.options(max_tokens, temperature))
        except openai.APIError as exc:
            raise self._failed(exc, _attempts(exc)) from None
        completion = raw.parse()
        choice = completion.choices[0] if completion.choices else None
        message = choice.message if choice else None
        calls = tuple(ToolCall(call.id, call.function.name, _arguments(call.function.arguments))
                      for call in (getattr(message, "tool_calls", None) or ())
                      if getattr(call, "function", None) is not None)
        usage = completion.usage
        prompt = int(usage.prompt_tokens) if usage else estimate_prompt_tokens(json.dumps(messages))
        output = int(usage.completion_tokens) if usage else 1
        return ChatReply(content=message.content if message else None, prompt_tokens=prompt,
                         completion_tokens=output, attempts=int(raw.retries_taken) + 1,
                         finish_reason=choice.finish_reason if choice else None, tool_calls=calls)

    def _once(self, system: str, user: str, schema: dict[str, Any] | None, schema_name: str,
              json_mode: str, max_tokens: int, temperature: float) -> ChatReply:
        kwargs: dict[str, Any] = {}
        if json_mode == "schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema_name, "strict": True, "schema": schema}}
        elif json_mode == "object":
            kwargs["response_format"] = {"type": "json_object"}
            system = f"{system}\n\nAnswer with one JSON object matching this JSON Schema:\n" \
                     f"{json.dumps(schema)}"
        raw = self._client.get().chat.completions.with_raw_response.create(
            model=self.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            **self._parameters.options(max_tokens, temperature), **kwargs,
        )
        completion = raw.parse()
        choice = completion.choices[0] if completion.choices else None
        content = choice.message.content if choice else None
        usage = completion.usage
        if usage is None:  # some compatible servers omit usage: charge an estimate
            prompt, output = estimate_prompt_tokens(system, user), estimate_prompt_tokens(content or "")
        else:
            prompt, output = int(usage.prompt_tokens), int(usage.completion_tokens)
        return ChatReply(content=content, prompt_tokens=prompt, completion_tokens=output,
                         attempts=int(raw.retries_taken) + 1,
                         finish_reason=choice.finish_reason if choice else None,
                         refusal=getattr(choice.message, "refusal", None) if choice else None)


def _arguments(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _attempts(exc: Exception) -> int:
    """How many requests the SDK sent for the call that raised `exc` (its retry-count header + 1)."""
    request = getattr(exc, "request", None)
    headers = getattr(request, "headers", None) or {}
    try:
        return int(headers.get("x-stainless-retry-count", 0)) + 1
    except ValueError:
        return 1
