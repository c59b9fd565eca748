"""Speech to text over the `openai` SDK's `audio.transcriptions.create` (OpenAI or a compatible server)."""

from __future__ import annotations

from chalicelib.kernel.openai_client import openai_client
from chalicelib.llm.services.ports import ChatFailed, FailureKind


class OpenAITranscription:
    def __init__(self, *, api_key: str, model: str, base_url: str | None = None,
                 timeout_s: float = 60.0, max_retries: int = 2) -> None:
        self._model = model
        self._timeout_s = timeout_s
        self._client = openai_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s,
                                     max_retries=max_retries, retry_timeouts=False)

    @property
    def model(self) -> str:
        return self._model

    def transcribe(self, audio: bytes, file_name: str) -> str:
        """The audio's text; ChatFailed when the server gave none."""
        import openai

        try:
            result = self._client.get().audio.transcriptions.create(model=self._model,
                                                                    file=(file_name, audio))
        except openai.BadRequestError as exc:
            raise ChatFailed("rejected", f"bad request: {exc.message}", 1) from None
        except openai.APITimeoutError:
            raise ChatFailed("timeout", f"no answer within {self._timeout_s:g}s", 1) from None
        except openai.APIError as exc:
            kind: FailureKind = "rate_limited" if isinstance(exc, openai.RateLimitError) else "error"
            raise ChatFailed(kind, type(exc).__name__, 1) from None
        return str(getattr(result, "text", "") or "").strip()
