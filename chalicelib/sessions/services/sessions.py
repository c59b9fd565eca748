"""Hook-reported sessions: events, edits, completion, and the SessionStart briefing.

Everything text-like is redacted before it is stored. Transcripts are kept with the session
so nothing is lost even when insight extraction is unavailable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.logging import log_failure
from chalicelib.memory.domain.session_metrics import clip, difficulty
from chalicelib.sessions.services.ports import Redact, SessionUnits

MAX_PROGRESS_CHARS = 4000
MAX_DIFF_CHARS = 20_000
MAX_TURN_CHARS = 8000
HOT_FILE_DAYS = 14


# What the briefing carries from memories: (answer key, categories, how many).
BRIEFING_MEMORIES: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("style", ("style",), 1),
    ("repo_expertise", ("repo_expertise",), 1),
    ("active_patterns", ("pattern", "pattern_observation"), 5),
    ("recent_decisions", ("decision",), 5),
    ("session_summaries", ("session_summary",), 3),
)


@dataclass(frozen=True)
class SessionEvent:
    session_id: str
    project: str
    client: str
    event: str
    data: dict[str, Any]


class SessionService:
    def __init__(self, units: SessionUnits, redact: Redact,
                 on_complete: Callable[[str, str], object] | None = None) -> None:
        self._units = units
        self._redact = redact
        self._on_complete = on_complete  # e.g. the memory lifecycle's over-budget check

    def _clean(self, text: str | None, limit: int) -> str | None:
        return clip(self._redact(text), limit) if text else text

    def record_event(self, ev: SessionEvent, delivery_key: str | None = None) -> bool:
        """Append a hook event; `stop` updates progress, compactions and failures are counted."""
        data = _redact_tree(ev.data, self._redact)
        progress = None
        if ev.event == "stop":
            progress = self._clean(str(ev.data.get("last_assistant_message") or ""), MAX_PROGRESS_CHARS)
        compaction = ev.event == "pre_compact" or (
            ev.event == "start" and ev.data.get("source") == "compact")
        with self._units() as uow:
            if delivery_key and not uow.claims.claim("session-event", delivery_key):
                return False
            uow.sessions.record_event(ev.session_id, ev.project, ev.client, ev.event, data,
                                      progress=progress or None, compaction=compaction,
                                      failure=ev.event == "tool_failure")
            uow.commit()
        return True

    def record_edit(self, edit: dict[str, Any], delivery_key: str | None = None) -> bool:
        """Record one edit; a delivery key seen before (a hook's outbox replay) is a no-op."""
        clean = {**edit, "diff": self._clean(edit.get("diff"), MAX_DIFF_CHARS)}
        with self._units() as uow:
            if delivery_key and not uow.claims.claim("session-edit", delivery_key):
                return False
            uow.sessions.record_edit(clean)
            uow.commit()
        return True

    def complete(self, session: dict[str, Any]) -> dict[str, Any]:
        """Close the session with its (redacted) transcript; return its difficulty."""
        transcript = session.get("transcript")
        if transcript is not None:
            transcript = [{**turn, "text": self._clean(turn.get("text"), MAX_TURN_CHARS)}
                          for turn in transcript]
        with self._units() as uow:
            row = uow.sessions.complete({**session, "transcript": transcript,
                                         "summary": self._clean(session.get("summary"), MAX_PROGRESS_CHARS)})
            uow.commit()
        if self._on_complete is not None:
            try:
                self._on_complete(str(session.get("project") or ""), str(row["session_id"]))
            except Exception as exc:  # the session is closed; the weekly run catches up on eviction
                log_failure("session-end eviction check failed", exc)
        return {"session_id": row["session_id"],
                "difficulty": difficulty(row["tool_failures"], row["tool_successes"], row["compactions"])}

    def briefing(self, project: str) -> dict[str, Any]:
        """Recent sessions, hot files, patterns, decisions and active tasks of one project.

        `memory_ids` lists the memories whose text it carries, so the hooks can keep a session
        from being shown them a second time."""
        with self._units() as uow:
            repo = uow.sessions
            recent = repo.recent_sessions(project, 5)
            memories = {key: repo.recent_memory_texts(project, categories, limit)
                        for key, categories, limit in BRIEFING_MEMORIES}

            def texts(key: str, chars: int) -> list[str]:
                return [clip(text, chars) or "" for _, text in memories[key]]

            style, expertise = texts("style", 300), texts("repo_expertise", 1500)
            return {
                "project": project,
                "recent_sessions": [
                    {"session_id": r["session_id"], "summary": clip(r["summary"], 300),
                     "ended_at": r["ended_at"].isoformat() if r["ended_at"] else None,
                     "files_changed": list(r["files_changed"])[:10]} for r in recent],
                "hot_files": repo.hot_files(project, HOT_FILE_DAYS, 8),
                "active_patterns": texts("active_patterns", 200),
                "recent_decisions": texts("recent_decisions", 200),
                "active_tasks": repo.active_tasks(project, 5),
                # What the code-intelligence workers wrote (chalicelib/codeintel); empty until they ran.
                "style": style[0] if style else None,
                "repo_expertise": expertise[0] if expertise else None,
                "session_summaries": texts("session_summaries", 400),
                "memory_ids": [ident for rows in memories.values() for ident, _ in rows],
            }


def _redact_tree(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: _redact_tree(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_tree(v, redact) for v in value]
    return value
