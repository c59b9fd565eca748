"""Parse `/remind <when> <message>` into a due time and the message. Times are UTC.

Accepted `when` forms:
- a duration, optionally after "in": `10m`, `in 2h`, `1h30m`, `in 3 days`, `90 minutes`;
- a clock time today (tomorrow if it has passed), optionally after "at": `17:30`, `at 9am`;
- `tomorrow`, optionally with a clock time (default 09:00): `tomorrow 8:15`, `tomorrow at 6pm`;
- a date, optionally with a clock time (default 09:00): `2026-11-23`, `2026-11-23 14:00`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from chalicelib.kernel.errors import InvalidInput

USAGE = "Usage: /remind <when> <message>, e.g. /remind 30m check the deploy, /remind tomorrow 9am standup"
MAX_AHEAD = timedelta(days=366)
DEFAULT_CLOCK = time(9, 0)

_UNITS = {
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "d": 86400, "day": 86400, "days": 86400,
    "w": 604800, "week": 604800, "weeks": 604800,
}  # fmt: skip
_UNIT = "|".join(sorted(_UNITS, key=len, reverse=True))
_DURATION = re.compile(rf"^(?:in\s+)?((?:\d+\s*(?:{_UNIT})\s*)+)(?=\s|$)", re.IGNORECASE)
_DURATION_PART = re.compile(rf"(\d+)\s*({_UNIT})", re.IGNORECASE)
_CLOCK = r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?"
_AT_CLOCK = re.compile(rf"^(?:at\s+)?{_CLOCK}(?=\s|$)", re.IGNORECASE)
_TOMORROW = re.compile(rf"^tomorrow(?:\s+(?:at\s+)?{_CLOCK})?(?=\s|$)", re.IGNORECASE)
_DATE = re.compile(rf"^(\d{{4}})-(\d{{2}})-(\d{{2}})(?:[T\s]+{_CLOCK})?(?=\s|$)", re.IGNORECASE)


@dataclass(frozen=True)
class Reminder:
    due_at: datetime
    message: str


def _clock(hour: str, minute: str | None, meridiem: str | None) -> time | None:
    h, m = int(hour), int(minute or 0)
    if meridiem:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if meridiem.lower() == "pm" else 0)
    elif minute is None:
        return None  # a bare number is not a clock time ("5 apples")
    if h > 23 or m > 59:
        return None
    return time(h, m)


def _parse_when(text: str, now: datetime) -> tuple[datetime, str] | None:
    if match := _DURATION.match(text):
        seconds = sum(int(n) * _UNITS[unit.lower()] for n, unit in _DURATION_PART.findall(match.group(1)))
        return now + timedelta(seconds=seconds), text[match.end():]
    if match := _TOMORROW.match(text):
        clock = _clock(*match.groups()) if match.group(1) else DEFAULT_CLOCK
        if clock is None:
            return None
        return datetime.combine(now.date() + timedelta(days=1), clock, UTC), text[match.end():]
    if match := _DATE.match(text):
        year, month, day, hour, minute, meridiem = match.groups()
        clock = _clock(hour, minute, meridiem) if hour else DEFAULT_CLOCK
        try:
            day_of = datetime(int(year), int(month), int(day), tzinfo=UTC).date()
        except ValueError:
            return None
        return (datetime.combine(day_of, clock, UTC), text[match.end():]) if clock else None
    if match := _AT_CLOCK.match(text):
        clock = _clock(*match.groups())
        if clock is None:
            return None
        due = datetime.combine(now.date(), clock, UTC)
        return (due if due > now else due + timedelta(days=1)), text[match.end():]
    return None


def parse_reminder(text: str, now: datetime) -> Reminder:
    """Parse "<when> <message>" relative to `now` (timezone-aware); raise InvalidInput if unclear."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    now = now.astimezone(UTC)
    parsed = _parse_when(text.strip(), now)
    if parsed is None:
        raise InvalidInput(f"I could not tell when. {USAGE}")
    due, rest = parsed
    message = rest.strip()
    if not message:
        raise InvalidInput(f"What should I remind you of? {USAGE}")
    if due <= now:
        raise InvalidInput("That time has already passed.")
    if due - now > MAX_AHEAD:
        raise InvalidInput("Reminders can be at most a year ahead.")
    return Reminder(due, message)
