"""Voice notes to text within the day's LLM budget, each call recorded in `llm_usage`.

A transcription is priced by the minute (`TRANSCRIPTION_USD_PER_MINUTE`); its worst case is
reserved before the call like a chat call's, and settled after. Over budget, or when the
server fails, it answers None and the caller says so.
"""

from __future__ import annotations

import math
from typing import Protocol

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.domain.llm_budget import DailyBudget
from chalicelib.llm.services.ports import ChatFailed, LlmUnits
from chalicelib.llm.services.usage_budget import BudgetedCalls

TRANSCRIPTION_USD_PER_MINUTE = 0.006  # whisper-1's price; a minute started is a minute charged


class SpeechModel(Protocol):
    @property
    def model(self) -> str: ...

    def transcribe(self, audio: bytes, file_name: str) -> str:
        """The text; raise ChatFailed when there is none."""
        ...


class DisabledTranscriber:
    """No key configured: voice notes are refused by the caller."""

    enabled = False

    def transcribe(self, purpose: str, audio: bytes, file_name: str, seconds: int) -> str | None:
        return None


class BudgetedTranscriber(BudgetedCalls):
    def __init__(self, speech: SpeechModel, units: LlmUnits, budget: DailyBudget) -> None:
        super().__init__(units, budget)
        self._speech = speech

    def transcribe(self, purpose: str, audio: bytes, file_name: str, seconds: int) -> str | None:
        """The words of `seconds` of audio, or None (over budget, failed, or nothing heard)."""
        model = self._speech.model
        usd = round(max(1, math.ceil(seconds / 60)) * TRANSCRIPTION_USD_PER_MINUTE, 6)
        usage_id = self._reserve(purpose, model, 0, usd, skipped="transcription skipped: {reason}")
        if usage_id is None:
            return None
        try:
            text = self._speech.transcribe(audio, file_name)
            status, cost, detail = ("ok", usd, None) if text else ("malformed", usd, "no words heard")
        except ChatFailed as exc:
            text, timed_out = "", exc.kind == "timeout"
            status, cost, detail = ("timeout" if timed_out else "error", usd if timed_out else 0.0,
                                    f"{exc.kind}: {exc}")
            get_logger().warning("transcription failed", extra={"purpose": purpose, "failure": exc.kind})
        self._settle(usage_id, status=status, prompt_tokens=0, completion_tokens=0, cost_usd=cost,
                     attempts=1, detail=detail)
        return text or None
