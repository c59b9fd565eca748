"""What the chat and the transcription clients over the `openai` SDK share."""

from __future__ import annotations

from chalicelib.kernel.openai_client import openai_client
from chalicelib.llm.services.ports import ChatFailed, FailureKind


class OpenAIModel:
    """One model of OpenAI or a compatible server. A timed-out request is not sent again: the
    server may still be working, and billing, on it."""

    def __init__(self, *, api_key: str, model: str, base_url: str | None, timeout_s: float,
                 max_retries: int) -> None:
        self.model = model
        self._timeout_s = timeout_s
        self._client = openai_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s,
                                     max_retries=max_retries, retry_timeouts=False)

    def _failed(self, exc: Exception, attempts: int) -> ChatFailed:
        """The ChatFailed for an error of the SDK (`openai.APIError`) after `attempts` requests."""
        import openai

        if isinstance(exc, openai.BadRequestError):
            return ChatFailed("rejected", f"bad request: {exc.message}", attempts)
        if isinstance(exc, openai.APITimeoutError):
            return ChatFailed("timeout", f"no answer within {self._timeout_s:g}s", attempts)
        kind: FailureKind = "rate_limited" if isinstance(exc, openai.RateLimitError) else "error"
        return ChatFailed(kind, type(exc).__name__, attempts)
