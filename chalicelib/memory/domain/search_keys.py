"""A memory's search key: what a question will name about it that its own words do not (pure).

Full-text search matches the words of a memory; a question often names the same thing another
way. The key is extracted at write time, without a model, and stored beside the text
(`memories.search_key`, part of `search_tsv`):

- identifiers in their parts: `memory_search.py`, `PostgresMemorySearch`, `api/memory/search`
  also read "memory search py", "postgres memory search", "api memory search";
- numbers both ways: "three" also reads 3, and 3 "three"; a number glued to its unit
  ("5km", "16GB", "30s") also reads "5 km";
- when it was written: the day as words and ISO ("Monday 8 May 2023 2023-05-08"), so a
  question naming the day, the month or the year finds it;
- a time the text names relative to when it was written ("yesterday", "last week", "two
  months ago") as the date it resolves to ("Sunday 7 May 2023").

The key holds only what the text says or when it was written: nothing is invented.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from chalicelib.memory.domain.query_dates import relative_window

MAX_KEY_CHARS = 2_000
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                 "nineteen", "twenty"]
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
         "hundred": 100, "thousand": 1000}
_WORD_VALUE = {**{w: i for i, w in enumerate(_NUMBER_WORDS)}, **_TENS}
_VALUE_WORD = {v: w for w, v in _WORD_VALUE.items()}
_WORD = re.compile(r"[A-Za-z]+")
_NUMBER = re.compile(r"(?<![\w.])(\d{1,4})(?![\w.,:/-]?\d)")
_GLUED_UNIT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([A-Za-z]{1,4})\b")
# Identifiers: snake_case, dotted or slashed paths and names, camelCase / PascalCase.
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[_./\\-][A-Za-z0-9]+)+|[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _identifier_parts(text: str) -> list[str]:
    parts: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        token = match.group(0)
        if re.fullmatch(r"[\d.,:/-]+", token):  # a date, a time, a version: numbers, not names
            continue
        parts += [p.lower() for p in _CAMEL.findall(token) if len(p) > 1]
    return parts


def _numbers(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text):
        value = _WORD_VALUE.get(word.lower())
        if value is not None and value > 1:  # "one" and "zero" are mostly not counts
            out.append(str(value))
    for match in _NUMBER.finditer(text):
        word = _VALUE_WORD.get(int(match.group(1)))
        if word:
            out.append(word)
    for match in _GLUED_UNIT.finditer(text):
        if not match.group(2).lower().startswith(("st", "nd", "rd", "th")):
            out += [match.group(1), match.group(2).lower()]
    return out


def day_words(day: datetime) -> list[str]:
    """A day as a question may name it: weekday, day, month, year and ISO date."""
    return [day.strftime("%A"), str(day.day), day.strftime("%B"), str(day.year), day.date().isoformat()]


def _dates(text: str, written_at: datetime | None) -> list[str]:
    if written_at is None:
        return []
    written = written_at.astimezone(UTC)
    words = day_words(written)
    window = relative_window(text, written)
    if window is not None and window.end - window.start <= timedelta(days=1):
        words += day_words(window.start)
    elif window is not None:  # a week or more: its months and years, not a day
        last = window.end - timedelta(days=1)
        words += [window.start.strftime("%B"), str(window.start.year), last.strftime("%B"), str(last.year)]
    return words


def search_key(content: str, written_at: datetime | None = None) -> str:
    """The key of a memory with `content` written at `written_at` (None: no dates): each term
    once, in order, cut at a word within MAX_KEY_CHARS."""
    terms = dict.fromkeys([*_identifier_parts(content), *_numbers(content), *_dates(content, written_at)])
    key = " ".join(terms)
    return key if len(key) <= MAX_KEY_CHARS else key[:MAX_KEY_CHARS].rsplit(" ", 1)[0]
