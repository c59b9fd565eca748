"""Chat completions over the `openai` SDK, for OpenAI or any OpenAI-compatible server.

The SDK is imported on first use (it costs about 0.3 s of a cold start). Structured output uses
`response_format: json_schema` (strict); a server that rejects it gets one retry in plain JSON
mode with the schema in the system prompt. Retries are ours, not the SDK's: 429s, 5xx and
connection errors are retried with exponential backoff (the server's Retry-After wins when it
is shorter than `max_backoff_s`); a timeout is not retried, because the server may still be
working (and billing) on the first attempt.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from chalicelib.llm.domain.llm_budget import estimate_prompt_tokens
from chalicelib.llm.services.llm_port import ChatFailed, ChatReply, FailureKind


class OpenAIChat:
    def __init__(self, *, api_key: str, model: str, base_url: str | None = None,
                 timeout_s: float = 30.0, max_retries: int = 3, backoff_s: float = 1.0,
                 max_backoff_s: float = 20.0, sleep: Callable[[float], None] = time.sleep) -> None:
        self._api_key = api_key
        self._model = model
        self._base_url = base_url
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._backoff_s = backoff_s
        self._max_backoff_s = max_backoff_s
        self._sleep = sleep
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        return self._model

    def _get_client(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import openai

                    self._client = openai.OpenAI(api_key=self._api_key, base_url=self._base_url,
                                                 timeout=self._timeout_s, max_retries=0)
        return self._client

    def chat(self, system: str, user: str, *, schema: dict[str, Any] | None, schema_name: str,
             max_tokens: int, temperature: float) -> ChatReply:
        import openai

        json_mode = "schema" if schema is not None else "none"
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._once(system, user, schema, schema_name, json_mode, max_tokens,
                                  temperature, attempt)
            except openai.BadRequestError as exc:
                if json_mode != "schema":
                    raise ChatFailed("error", f"bad request: {exc.message}", attempt) from None
                json_mode = "object"  # the server may not support json_schema: ask for plain JSON
            except openai.APITimeoutError:
                raise ChatFailed("timeout", f"no answer within {self._timeout_s:g}s", attempt) from None
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError) as exc:
                kind: FailureKind = "rate_limited" if isinstance(exc, openai.RateLimitError) else "error"
                wait = self._wait_before_retry(attempt, _retry_after(exc))
                if wait is None:
                    raise ChatFailed(kind, f"{type(exc).__name__} after {attempt} attempt(s)",
                                     attempt) from None
                self._sleep(wait)
            except openai.APIError as exc:
                raise ChatFailed("error", f"{type(exc).__name__}: {exc.message}", attempt) from None

    def _once(self, system: str, user: str, schema: dict[str, Any] | None, schema_name: str,
              json_mode: str, max_tokens: int, temperature: float, attempt: int) -> ChatReply:
        kwargs: dict[str, Any] = {}
        if json_mode == "schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema_name, "strict": True, "schema": schema}}
        elif json_mode == "object":
            kwargs["response_format"] = {"type": "json_object"}
            system = f"{system}\n\nAnswer with one JSON object matching this JSON Schema:\n" \
                     f"{json.dumps(schema)}"
        completion = self._get_client().chat.completions.create(
            model=self._model, temperature=temperature, max_tokens=max_tokens,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            **kwargs,
        )
        content = completion.choices[0].message.content if completion.choices else None
        usage = completion.usage
        if usage is None:  # some compatible servers omit usage: charge an estimate
            prompt, output = estimate_prompt_tokens(system, user), estimate_prompt_tokens(content or "")
        else:
            prompt, output = int(usage.prompt_tokens), int(usage.completion_tokens)
        return ChatReply(content=content, prompt_tokens=prompt, completion_tokens=output,
                         attempts=attempt)

    def _wait_before_retry(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before the next attempt, or None to give up."""
        if attempt > self._max_retries:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self._max_backoff_s else None
        backoff = self._backoff_s * 2 ** (attempt - 1)
        return min(self._max_backoff_s, backoff * (0.5 + random.random() / 2))  # jitter


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) * scale)
        except ValueError:
            continue
    return None
