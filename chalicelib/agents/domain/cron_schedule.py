"""Five-field cron expressions (minute hour day-of-month month day-of-week), in UTC.

Each field is `*`, a number, a range `a-b`, a list `a,b`, or any of those with a step `/n`;
day-of-week 0 or 7 is Sunday, and the names `mon`..`sun` / `jan`..`dec` are accepted. As in
cron, when both day fields are restricted a day matching either one fires.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from chalicelib.kernel.errors import InvalidInput

_DAYS = {name: i for i, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"))}
_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (
    ("minute", 0, 59, {}), ("hour", 0, 23, {}), ("day of month", 1, 31, {}),
    ("month", 1, 12, _MONTHS), ("day of week", 0, 7, _DAYS))
SEARCH_DAYS = 4 * 366  # far enough for 29 February


@dataclass(frozen=True)
class CronSchedule:
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    any_day: bool
    any_weekday: bool

    def _day_matches(self, moment: datetime) -> bool:
        weekday = (moment.weekday() + 1) % 7  # Python's Monday=0 to cron's Sunday=0
        by_day, by_weekday = moment.day in self.days, weekday in self.weekdays
        if self.any_day or self.any_weekday:
            return by_day and by_weekday
        return by_day or by_weekday

    def next_after(self, moment: datetime) -> datetime | None:
        """The first matching minute strictly after `moment` (None if there is none)."""
        start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for offset in range(SEARCH_DAYS):
            candidate = day + timedelta(days=offset)
            if candidate.month not in self.months or not self._day_matches(candidate):
                continue
            for hour in sorted(self.hours):
                for minute in sorted(self.minutes):
                    at = candidate.replace(hour=hour, minute=minute)
                    if at >= start:
                        return at
        return None


def _value(text: str, low: int, high: int, names: dict[str, int], what: str) -> int:
    key = text.lower()
    if key in names:
        return names[key]
    if not key.isdigit() or not low <= int(key) <= high:
        raise InvalidInput(f"cron {what} {text!r} is not in {low}-{high}", field="schedule")
    return int(key)


def _field(text: str, low: int, high: int, names: dict[str, int], what: str) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        base, _, step_text = part.partition("/")
        step = _value(step_text, 1, high, {}, what) if step_text else 1
        if base == "*":
            first, last = low, high
        elif "-" in base:
            a, _, b = base.partition("-")
            first, last = _value(a, low, high, names, what), _value(b, low, high, names, what)
        else:
            first = _value(base, low, high, names, what)
            last = high if step_text else first
        if first > last:
            raise InvalidInput(f"cron {what} range {base!r} is backwards", field="schedule")
        values.update(range(first, last + 1, step))
    return frozenset(values)


def parse_cron(expression: str) -> CronSchedule:
    parts = expression.split()
    if len(parts) != 5:
        raise InvalidInput("a cron schedule has five fields: minute hour day month weekday", field="schedule")
    sets = [_field(part, low, high, names, what)
            for part, (what, low, high, names) in zip(parts, _FIELDS, strict=True)]
    weekdays = frozenset(d % 7 for d in sets[4])
    return CronSchedule(sets[0], sets[1], sets[2], sets[3], weekdays, parts[2] == "*", parts[4] == "*")
