"""Speech to text over the `openai` SDK's `audio.transcriptions.create` (OpenAI or a compatible server)."""

from __future__ import annotations

from chalicelib.llm.adapters.openai_model import OpenAIModel


class OpenAITranscription(OpenAIModel):
    def __init__(self, *, api_key: str, model: str, base_url: str | None = None,
                 timeout_s: float = 60.0, max_retries: int = 2) -> None:
        super().__init__(api_key=api_key, model=model, base_url=base_url, timeout_s=timeout_s,
                         max_retries=max_retries)

    def transcribe(self, audio: bytes, file_name: str) -> str:
        """The audio's text; ChatFailed when the server gave none."""
        import openai

        try:
            result = self._client.get().audio.transcriptions.create(model=self.model,
                                                                    file=(file_name, audio))
        except openai.APIError as exc:
            raise self._failed(exc, 1) from None
        return str(getattr(result, "text", "") or "").strip()
