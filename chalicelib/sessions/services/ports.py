"""What the session service needs: its repository and the idempotency claims, in one unit of work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from chalicelib.kernel.unit_of_work import Claims, UnitOfWork

Redact = Callable[[str], str]


class SessionRepository(Protocol):
    def record_event(self, session_id: str, project: str, client: str, event: str, data: dict[str, Any], *,
                     progress: str | None, compaction: bool, failure: bool) -> None:
        """Upsert the session (counters, last progress) and append the event."""
        ...

    def record_edit(self, edit: dict[str, Any]) -> None:
        """Store an edit and count it as a tool success (unless it failed)."""
        ...

    def complete(self, session: dict[str, Any]) -> dict[str, Any]:
        """Close the session; return {session_id, tool_failures, tool_successes, compactions}."""
        ...

    def get(self, session_id: str) -> dict[str, Any] | None: ...

    def recent_sessions(self, project: str, limit: int) -> list[dict[str, Any]]: ...

    def hot_files(self, project: str, days: int, limit: int) -> list[dict[str, Any]]: ...

    def recent_memory_texts(self, project: str, categories: tuple[str, ...],
                            limit: int) -> list[tuple[str, str]]:
        """(id, summary or content) of the newest live trusted memories of those categories."""
        ...

    def active_tasks(self, project: str, limit: int) -> list[dict[str, Any]]: ...


class SessionUnitOfWork(UnitOfWork, Protocol):
    sessions: SessionRepository
    claims: Claims


SessionUnits = Callable[[], SessionUnitOfWork]
