"""A memory's search key: what a question will name about it that its own words do not (pure).

Full-text search matches the words of a memory; a question often names the same thing another
way. The key is extracted at write time, without a model, and stored beside the text
(`memories.search_key` and `search_context`, parts of `search_tsv` weighted below the memory's own
words):

- identifiers in their parts: `memory_search.py`, `PostgresMemorySearch`, `api/memory/search`
  also read "memory search py", "postgres memory search", "api memory search";
- numbers both ways: "three" also reads 3, and 3 "three"; a number glued to its unit
  ("5km", "16GB", "30s") also reads "5 km";
- when it was written: the day as words and ISO ("Monday 8 May 2023 2023-05-08"), so a
  question naming the day, the month or the year finds it;
- a time the text names relative to when it was written ("yesterday", "last week", "two
  months ago") as the date it resolves to ("Sunday 7 May 2023");
- what it answers (its context, `search_context`): the start of the memory written just before it
  in the same write, project, session (`session_id`, or none) and half hour (a conversation's turn
  before, a working session's step before; never another terminal's, as for search's
  neighbours). A reply names little of what it replies to ("Yes, last week, it was amazing!"); the
  question about it does. The context's words count less than the memory's own in the text score
  (`memory_search.CONTEXT_SHARE`), so the turn before still ranks above the reply keyed by it.

The key holds only what the text says or when it was written: nothing is invented. When a language
model is configured, the facts it states about the memory (`key_facts`, the `search-facts` schedule)
are appended after the model-free key, within MAX_KEY_CHARS, and kept apart in `search_facts` so
that a later pass replaces them without touching the rest (`with_facts`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.query_dates import relative_window

MAX_KEY_CHARS = 2_000
CONTEXT_CHARS, CONTEXT_WINDOW = 500, timedelta(minutes=30)  # chosen on LoCoMo 1-5
_NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
                 "nineteen", "twenty"]
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
         "hundred": 100, "thousand": 1000}
_WORD_VALUE = {**{w: i for i, w in enumerate(_NUMBER_WORDS)}, **_TENS}
_VALUE_WORD = {v: w for w, v in _WORD_VALUE.items()}
_NUMBER = re.compile(r"(?<![\w.])(\d{1,4})(?![\w.,:/-]?\d)")
_GLUED_UNIT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)([A-Za-z]{1,4})\b")
# Identifiers: snake_case, dotted or slashed paths and names, camelCase / PascalCase.
_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[_./\\-][A-Za-z0-9]+)+|[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*")
_MAY_BE_IDENTIFIER = re.compile(r"\w[_./\\-]\w|[a-z][A-Z]")
_LOWER_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def _identifier_parts(text: str) -> list[str]:
    parts: list[str] = []
    for match in (m for word in text.split() if _MAY_BE_IDENTIFIER.search(word)
                  for m in _IDENTIFIER.finditer(word)):
        token = match.group(0)
        if re.fullmatch(r"[\d.,:/-]+", token):  # a date, a time, a version: numbers, not names
            continue
        parts += [p.lower() for p in _CAMEL.findall(token) if len(p) > 1]
    return parts


def _numbers(text: str) -> list[str]:
    out: list[str] = []
    for word in _LOWER_WORD.findall(text.lower()):
        value = _WORD_VALUE.get(word)
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
    written = _aware(written_at).astimezone(UTC)
    words = day_words(written)
    window = relative_window(text, written)
    if window is not None and window.end - window.start <= timedelta(days=1):
        words += day_words(window.start)
    elif window is not None:  # a week or more: its months and years, not a day
        last = window.end - timedelta(days=1)
        words += [window.start.strftime("%B"), str(window.start.year), last.strftime("%B"), str(last.year)]
    return words


def _aware(when: datetime) -> datetime:
    """A time without a zone is UTC (as the database stores it)."""
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def cut_at_word(text: str, limit: int) -> str:
    """`text` if within `limit` characters, else its first `limit` cut back to the last whole word."""
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def search_key(content: str, written_at: datetime | None = None) -> str:
    """The key of a memory with `content` written at `written_at` (None: no dates): each term once,
    in order, cut at a word within MAX_KEY_CHARS."""
    terms = dict.fromkeys([*_identifier_parts(content), *_numbers(content), *_dates(content, written_at)])
    return cut_at_word(" ".join(terms), MAX_KEY_CHARS)


def with_facts(key: str, old_facts: str, facts: Sequence[str]) -> tuple[str, str]:
    """(`key` with `facts` in place of `old_facts`, the facts appended): the model-free key is kept
    as is, and as many whole facts follow it as fit within MAX_KEY_CHARS."""
    base = key[:-len(old_facts)].rstrip() if old_facts and key.endswith(old_facts) else key
    room = MAX_KEY_CHARS - len(base) - (1 if base else 0)
    kept: list[str] = []
    for fact in facts:
        if len(". ".join([*kept, fact])) <= room:
            kept.append(fact)
    appended = ". ".join(kept)
    return (f"{base} {appended}" if base and appended else base or appended), appended


def search_context(before: str) -> str:
    """The context of a memory written just after `before`: its first CONTEXT_CHARS, cut at a word."""
    return cut_at_word(" ".join(before.split()), CONTEXT_CHARS)


Written = tuple[str, str | None, str, datetime]  # a memory's project, session, content and time


def contexts(memories: Sequence[Written]) -> list[str]:
    """Each memory's context, for memories in write order: the start of the one before it of the
    same project and session (or none), written within CONTEXT_WINDOW of it."""
    out: list[str] = []
    last: dict[tuple[str, str | None], tuple[str, datetime]] = {}  # (project, session) -> (text, time)
    for project, session, content, at in memories:
        written = _aware(at)
        before = last.get((project, session))
        out.append(search_context(before[0]) if before is not None and
                   abs(before[1] - written) <= CONTEXT_WINDOW else "")
        last[(project, session)] = (content, written)
    return out


def keyed(drafts: Sequence[MemoryDraft], now: datetime) -> list[MemoryDraft]:
    """The drafts of one write with their search keys and contexts (a draft without `created_at` is
    written `now`)."""
    times = [_aware(draft.created_at or now) for draft in drafts]
    found = contexts([(d.project, d.session_id, d.content, at) for d, at in zip(drafts, times, strict=True)])
    return [dataclasses.replace(draft, search_key=search_key(draft.content, written), search_context=context)
            for draft, written, context in zip(drafts, times, found, strict=True)]
