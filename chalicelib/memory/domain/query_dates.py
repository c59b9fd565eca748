"""The time a search query is about, read from its words, and how near a memory is to it (pure).

A query that names a date ("on 3 May 2023", "2023-05-03", "in March 2024", "in 2023") or a time
relative to now ("yesterday", "last week", "3 days ago", "last month") is about a window of
time; memories stored in it are more likely what the query means. `query_window` finds the
window (an absolute date wins over a relative one; the first of each kind counts), and
`closeness` says how near a memory's time is: 1 inside the window, halving with every
`max(1 day, window length)` outside it. The search multiplies a memory's score by
`1 - w + w * closeness` (`SearchWeights.dates`), so a query without a date is untouched and a
weight of 0 switches the whole thing off. English month names and numerals only.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): n for n, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_ABSOLUTE = [  # (pattern, what it names), most specific first
    (re.compile(rf"\b{_YEAR}-(?P<num>[01]?\d)-(?P<day>[0-3]?\d)\b"), "day"),
    (re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I), "day"),
    (re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b", re.I), "day"),
    (re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I), "month"),
    (re.compile(rf"\b(?:in|during|of|early|late|mid)\s+{_YEAR}\b", re.I), "year"),
]
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_AGO = re.compile(r"\b(?P<n>\d+|an?|one|two|three|four|five|six)\s+(?P<unit>day|week|month|year)s?\s+ago\b",
                  re.I)
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_RELATIVE = re.compile(r"\b(?P<which>yesterday|today|(?:last|this|past)\s+(?:week(?:end)?|month|year))\b",
                       re.I)


@dataclass(frozen=True)
class TimeWindow:
    start: datetime
    end: datetime  # exclusive

    def closeness(self, when: datetime) -> float:
        """1 inside the window; 0.5 ** (distance / max(1 day, window length)) outside."""
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        if self.start <= when < self.end:
            return 1.0
        distance = (self.start - when) if when < self.start else (when - self.end)
        scale = max(timedelta(days=1), self.end - self.start)
        return float(0.5 ** (distance / scale))


def _absolute(query: str) -> TimeWindow | None:
    for pattern, kind in _ABSOLUTE:
        match = pattern.search(query)
        if not match:
            continue
        groups = match.groupdict()
        year = int(groups["year"])
        name = (groups.get("month") or "").lower()
        month = int(groups["num"]) if groups.get("num") else _MONTHS.get(name, 1)
        try:
            if kind == "day":
                start = datetime(year, month, int(groups["day"]), tzinfo=UTC)
                return TimeWindow(start, start + timedelta(days=1))
            if kind == "month":
                start = datetime(year, month, 1, tzinfo=UTC)
                return TimeWindow(start, datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC))
            return TimeWindow(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
        except ValueError:  # "31 February": not a date
            continue
    return None


def relative_window(query: str, now: datetime) -> TimeWindow | None:
    """The window a time relative to `now` names ("yesterday", "last week", "3 days ago"), or None."""
    today = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if match := _AGO.search(query):
        raw = match.group("n").lower()
        days = (int(raw) if raw.isdigit() else _WORDS[raw]) * _UNITS[match.group("unit").lower()]
        try:
            span = timedelta(days=max(1, days // 4))  # "3 weeks ago" is not to the day
            centre = today - timedelta(days=days)
            return TimeWindow(centre - span, centre + span + timedelta(days=1))
        except OverflowError:  # "66000000 years ago": before the calendar begins, no window
            return None
    if match := _RELATIVE.search(query):
        which = " ".join(match.group("which").lower().split())
        if which == "today":
            return TimeWindow(today, today + timedelta(days=1))
        if which == "yesterday":
            return TimeWindow(today - timedelta(days=1), today)
        word, unit = which.split()
        days = 7 if unit.startswith("week") else _UNITS[unit]
        if word in ("this", "past"):
            return TimeWindow(today - timedelta(days=days), today + timedelta(days=1))
        return TimeWindow(today - timedelta(days=2 * days), today - timedelta(days=days) + timedelta(days=1))
    return None


def query_window(query: str, now: datetime) -> TimeWindow | None:
    """The window of time `query` names (absolute first, then relative to `now`), or None."""
    return _absolute(query) or relative_window(query, now)


def date_factor(window: TimeWindow | None, when: datetime, weight: float) -> float:
    """The multiplier of a memory's score: 1 - weight + weight * closeness (1 without a window)."""
    if window is None or weight <= 0:
        return 1.0
    return 1.0 - weight + weight * window.closeness(when)
