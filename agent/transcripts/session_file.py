"""What backfill needs of one session file, whichever engine wrote it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True)
class SessionFile:
    """A session on disk: the id its engine gave it, where it ran, when it started."""

    engine: str
    path: Path
    session_id: str
    cwd: str | None
    started_at: datetime | None


def parse_time(value: object) -> datetime | None:
    """An ISO 8601 time (a trailing Z included) as an aware datetime; None if it is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def modified_at(path: Path) -> datetime | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None
