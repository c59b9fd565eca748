"""Dates named in a sentence ("on 3 March", "2026-03-03", "next Friday", "in 2 weeks")."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

MONTHS = {
    m: i + 1
    for i, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        )
    )
}
MONTHS.update({name[:3]: n for name, n in list(MONTHS.items())})
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:tember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+(20\d\d))?", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(20\d\d))?", re.I)
_RELATIVE = re.compile(r"\bin\s+(\d{1,3})\s+(day|week|month)s?\b", re.I)
_NEXT_DAY = re.compile(
    r"\b(?:next|this|on|by)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I
)


def _make(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=UTC)
    except ValueError:
        return None


def date_in(sentence: str, now: datetime) -> datetime | None:
    """The first date `sentence` names, read relative to `now` (a bare day and month is the next
    one to come); None when it names none."""
    if m := _ISO.search(sentence):
        return _make(int(m[1]), int(m[2]), int(m[3]))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        if m := pattern.search(sentence):
            month, day = MONTHS[m[month_group].lower()[:3]], int(m[day_group])
            if m[3]:
                return _make(int(m[3]), month, day)
            found = _make(now.year, month, day)
            if found is not None and found.date() < now.date():
                found = _make(now.year + 1, month, day)
            return found
    lowered = sentence.lower()
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if "tomorrow" in lowered:
        return start + timedelta(days=1)
    if m := _RELATIVE.search(sentence):
        days = int(m[1]) * {"day": 1, "week": 7, "month": 30}[m[2].lower()]
        return start + timedelta(days=days)
    if m := _NEXT_DAY.search(sentence):
        ahead = (WEEKDAYS.index(m[1].lower()) - start.weekday()) % 7 or 7
        return start + timedelta(days=ahead)
    return None
