"""The `openai` SDK client for OpenAI or any OpenAI-compatible server, built on first use.

Importing the SDK costs about 0.3 s of a cold start, so nothing here imports it until `get()`.
Retries are the SDK's own (`max_retries`): 408, 409, 429, 5xx and connection errors, with
exponential backoff and jitter, honouring `Retry-After` up to the SDK's limit (2 minutes).
With `retry_timeouts=False` a request that timed out is not sent again: a chat completion may
still be running, and billing, on the server.
"""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.lazy import Lazy


def openai_client(*, api_key: str, base_url: str | None, timeout_s: float, max_retries: int,
                  retry_timeouts: bool = True) -> Lazy[Any]:
    """A lazily built `openai.OpenAI` client."""

    def build() -> Any:
        import openai

        http_client = None if retry_timeouts else _final_timeouts_client()
        return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout_s,
                             max_retries=max_retries, http_client=http_client)

    return Lazy(build)


def _final_timeouts_client() -> Any:
    """The SDK's default HTTP client, except that a timeout reaches the SDK as its own error.

    The SDK retries transport timeouts but passes its own errors through untouched, so a
    timeout raised as `openai.APITimeoutError` ends the call after one attempt.
    """
    import httpx2
    import openai

    class FinalTimeouts(openai.DefaultHttpxClient):  # type: ignore[misc,valid-type]
        def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
            try:
                return super().send(request, **kwargs)  # type: ignore[no-any-return]
            except httpx2.TimeoutException as exc:
                raise openai.APITimeoutError(request=request) from exc

    return FinalTimeouts()
