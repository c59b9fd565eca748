"""What one engine run amounted to, accumulated from its parsed events."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from chalicelib.contracts.engine_events import EngineEvent, EventKind


@dataclass
class RunSummary:
    """Fold events in with `add`; read the outcome once the engine has exited."""

    engine: str
    session_id: str | None = None
    last_text: str = ""
    result_text: str = ""
    result_seen: bool = False
    is_error: bool = False
    cost_usd: float | None = None
    rate_limited: bool = False
    rate_limit_message: str = ""
    errors: list[str] = field(default_factory=list)
    tools: Counter[str] = field(default_factory=Counter)
    files_touched: list[str] = field(default_factory=list)
    _delta_text: str = ""

    def add(self, event: EngineEvent) -> None:
        kind, data = event.kind, event.data
        if kind == EventKind.INIT and data.get("session_id"):
            self.session_id = str(data["session_id"])
        elif kind == EventKind.TEXT:
            self._add_text(event)
        elif kind == EventKind.TOOL_USE:
            self.tools[str(data.get("tool") or event.text)] += 1
            for path in [data.get("file_path"), data.get("path"), *(data.get("files") or [])]:
                if isinstance(path, str) and path and path not in self.files_touched:
                    self.files_touched.append(path)
        elif kind == EventKind.RATE_LIMIT:
            self.rate_limited = True
            self.rate_limit_message = event.text or self.rate_limit_message
        elif kind == EventKind.ERROR:
            self.errors.append(event.text)
        elif kind == EventKind.RESULT:
            self.result_seen = True
            self.is_error = bool(data.get("is_error"))
            self.result_text = event.text or self.result_text
            cost = data.get("cost_usd")
            if isinstance(cost, int | float):  # Claude Code's figure is the session's running total
                self.cost_usd = max(self.cost_usd or 0.0, float(cost))

    def _add_text(self, event: EngineEvent) -> None:
        if event.data.get("delta"):
            self._delta_text += event.text
            self.last_text = self._delta_text
        else:
            self._delta_text = ""
            self.last_text = event.text

    @property
    def summary(self) -> str:
        """The engine's own closing words: its result text, else its last message."""
        if self.result_text and not self.is_error:
            return self.result_text
        return self.last_text or self.result_text or (self.errors[-1] if self.errors else "")

    def succeeded(self, exit_code: int | None) -> bool:
        return exit_code == 0 and not self.is_error and not self.rate_limited

    def failure(self, engine: str, exit_code: int | None) -> str:
        """Why the run failed, in the engine's words when it gave any."""
        if self.rate_limited:
            return self.rate_limit_message or f"{engine} is rate limited"
        if self.errors:
            return self.errors[-1]
        if self.is_error and self.result_text:
            return self.result_text
        if exit_code is None:
            return f"{engine} did not start"
        return f"{engine} exited with code {exit_code}"

    def progress_notes(self) -> str:
        """A few lines on what was done, for a handoff to another engine."""
        lines = []
        if self.tools:
            used = ", ".join(f"{name} x{count}" for name, count in self.tools.most_common(8))
            lines.append(f"- tools used: {used}")
        if self.files_touched:
            lines.append(f"- files touched: {', '.join(self.files_touched[:20])}")
        if self.last_text:
            lines.append(f"- last message: {self.last_text[:1500]}")
        return "\n".join(lines) or "- no progress was recorded before the switch"
