"""The graph without an LLM: entities, instructions, plans, events and facts read from wording.

Entities come from capitalised phrases, file paths, code identifiers and "the billing service"
style names; instructions from imperative and always / never / from now on / must sentences
(with their pattern and a scope guess); plans from sentences naming a future date; events from
past-tense statements; facts from other statements that name an entity. Questions are asked,
not told: nothing of them is stored. Entities named in one sentence are linked.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import datetime

from chalicelib.graph.domain.aliases import alias_pairs, first_name
from chalicelib.graph.domain.dates import date_in
from chalicelib.graph.domain.instruction_patterns import IMPERATIVE, is_instruction, pattern_of, scope_of
from chalicelib.graph.domain.names import normalise_name

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z0-9&'-]*(?:\s+(?:of\s+|&\s+)?[A-Z][a-zA-Z0-9&'-]*)*")
_PATH = re.compile(r"(?<![\w/])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+")
_IDENTIFIER = re.compile(r"`([^`\n]{2,60})`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+)\b")
_KIND = re.compile(
    r"\b(?:[Tt]he\s+)?([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*?)[\s_-](service|api|repo|repository|database|queue|pipeline|"
    r"account|team|project|app|library|cluster)\b"
)
_QUESTION = re.compile(
    r"^(who|what|when|where|why|how|which|is|are|do(?!\s+not\b)|does|did|can|could|should|would|"
    r"will|shall)\b",
    re.I,
)
_OPINION = re.compile(
    r"\b(i think|i believe|in my opinion|i feel|i like|i love|i hate|is great|is awful|"
    r"is terrible|is better than|is worse than)\b",
    re.I,
)
_PAST = re.compile(
    r"\b(yesterday|last (?:week|month|year|night)|ago|finished|shipped|deployed|replaced|"
    r"migrated|moved|released|fixed|broke|decided|switched|merged|launched|completed)\b",
    re.I,
)
_FUTURE = re.compile(r"\b(will|going to|planned|plan to|scheduled|due|deadline|by|next|tomorrow|on)\b", re.I)
_RELATION_VERBS = (
    ("works for", "works_for"),
    ("works on", "works_on"),
    ("reports to", "reports_to"),
    ("replaced", "replaced"),
    ("owns", "owns"),
    ("handles", "handles"),
    ("manages", "manages"),
    ("maintains", "maintains"),
    ("uses", "uses"),
    ("depends on", "depends_on"),
    ("is part of", "part_of"),
    ("leads", "leads"),
)
_STOP_WORDS = (  # words that start sentences, not names
    "i we you he she it they the a an this that these those there here my our your his her its their "
    "actually also always never from now on please must should could would will can do does did is "
    "are was were be been if when while then so but and or not no yes ok okay hi hello thanks thank "
    "note remember make sure let lets let's today tomorrow yesterday monday tuesday wednesday "
    "thursday friday saturday sunday january february march april may june july august september "
    "october november december going use run deploy avoid keep add write put call check prefer ask "
    "send review test build ship who what where why how which after before first next last every all "
    "any some each team"
)
STOP = IMPERATIVE | frozenset(_STOP_WORDS.split())
_SHORT_STATEMENT = 3


@dataclass(frozen=True)
class Mention:
    name: str
    subtype: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Item:
    """A node to store, with the names of the entities it is about."""

    node_type: str
    content: str
    subtype: str | None = None
    scope: float | None = None
    valid_from: datetime | None = None
    entities: tuple[str, ...] = ()
    pattern: str | None = None


@dataclass(frozen=True)
class Link:
    source: str
    target: str
    edge_type: str


@dataclass
class Extraction:
    entities: list[Mention] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    asking: bool = False

    def as_json(self) -> dict[str, object]:
        return {
            "entities": [m.__dict__ for m in self.entities],
            "items": [
                {**i.__dict__, "valid_from": i.valid_from.isoformat() if i.valid_from else None}
                for i in self.items
            ],
            "links": [link.__dict__ for link in self.links],
            "asking": self.asking,
        }


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s and s.strip()]


def mentions(sentence: str) -> list[Mention]:
    """Entity names in one sentence, in order of appearance, without repeats."""
    found: list[tuple[int, Mention]] = []
    for m in _PATH.finditer(sentence):
        found.append((m.start(), Mention(m.group(0).rstrip("."), "document")))
    for m in _IDENTIFIER.finditer(sentence):
        found.append((m.start(), Mention(m.group(1) or m.group(2), "tool")))
    for m in _KIND.finditer(sentence):
        if m.group(1).lower() not in STOP:
            kind = m.group(2).lower()
            subtype = {"account": "account", "team": "org", "project": "project"}.get(kind, "tool")
            found.append((m.start(1), Mention(sentence[m.start(1) : m.end(2)], subtype)))
    for m in _CAPITALISED.finditer(sentence):
        words = [w for w in m.group(0).split() if w.lower() not in STOP]
        if not words:
            continue
        name = " ".join(words)
        person = len(words) <= 3 and _looks_like_person(sentence, m.end())
        given = first_name(name) if person else None
        subtype = "person" if person and (len(words) == 1 or given) else "concept"
        found.append((m.start(), Mention(name, subtype, (given,) if given else ())))
    seen: set[str] = set()
    result: list[Mention] = []
    for _, mention in sorted(found, key=lambda pair: pair[0]):
        key = normalise_name(mention.name)
        if len(key) < 2 or key in seen or any(key in s.split() for s in seen):
            continue
        seen.add(key)
        result.append(mention)
    return result


def with_aliases(sentence: str, names: list[Mention]) -> list[Mention]:
    """`names` with the aliases the sentence states folded in: "Site Reliability Engineering
    (SRE)" is one entity answering to "SRE", not two."""
    merged = list(names)
    for owner, alias in alias_pairs(sentence, [m.name for m in names]):
        alias_key, owner_key = normalise_name(alias), normalise_name(owner)
        merged = [m for m in merged if normalise_name(m.name) != alias_key]
        at = next((i for i, m in enumerate(merged) if normalise_name(m.name) == owner_key), None)
        if at is None:
            at = next((i for i, m in enumerate(merged) if normalise_name(m.name) in owner_key.split()), None)
            if at is None:
                merged.append(Mention(owner, "concept"))
                at = len(merged) - 1
            else:
                merged[at] = Mention(owner, merged[at].subtype, merged[at].aliases)
        current = merged[at]
        if alias_key not in {normalise_name(a) for a in current.aliases}:
            merged[at] = Mention(current.name, current.subtype, (*current.aliases, alias))
    return merged


def _looks_like_person(sentence: str, end: int) -> bool:
    after = sentence[end : end + 24].lower()
    return any(
        after.startswith(" " + verb)
        for verb in (
            "owns",
            "handles",
            "is responsible",
            "works",
            "said",
            "leads",
            "manages",
            "asked",
            "reports",
            "will",
            "is on",
            "takes over",
            "maintains",
            "wants",
            "prefers",
        )
    )


def extract(text: str, now: datetime) -> Extraction:
    """Everything `text` tells (an empty extraction when it only asks)."""
    result = Extraction()
    entity_keys: set[str] = set()
    told = 0
    for sentence in sentences(text):
        names = with_aliases(sentence, mentions(sentence))
        for mention in names:
            if normalise_name(mention.name) not in entity_keys:
                entity_keys.add(normalise_name(mention.name))
                result.entities.append(mention)
        item = _item(sentence, names, now)
        if item is not None:
            told += 1
            result.items.append(item)
        result.links.extend(_links(sentence, names))
    result.asking = told == 0 and bool(text.strip())
    return result


def _item(sentence: str, names: list[Mention], now: datetime) -> Item | None:
    if sentence.rstrip().endswith("?") or _QUESTION.match(sentence):
        return None
    if len(sentence.split()) <= _SHORT_STATEMENT:
        return None
    entity_names = tuple(m.name for m in names)
    if is_instruction(sentence):
        pattern, subtype = pattern_of(sentence)
        specific = sum(1 for m in names if m.subtype in ("person", "account"))
        return Item(
            "instruction", sentence, subtype, scope_of(sentence, specific), None, entity_names, pattern
        )
    when = date_in(sentence, now)
    if when is not None and _FUTURE.search(sentence) and when >= now.replace(hour=0, minute=0, second=0):
        return Item("plan", sentence, "scheduled", 0.3, when, entity_names)
    if _OPINION.search(sentence):
        return Item("opinion", sentence, None, None, None, entity_names)
    if _PAST.search(sentence):
        subtype = "decision" if re.search(r"\b(decided|replaced|switched)\b", sentence, re.I) else "action"
        return Item("event", sentence, subtype, None, when, entity_names)
    if names:
        return Item("fact", sentence, None, None, None, entity_names)
    return None


def _links(sentence: str, names: list[Mention]) -> list[Link]:
    """Consecutive entities of a sentence, typed by the verb between them when it is a known one."""
    links: list[Link] = []
    lowered = sentence.lower()
    for left, right in itertools.pairwise(names):
        start = lowered.find(left.name.lower()) + len(left.name)
        between = lowered[start : lowered.find(right.name.lower(), start)] if start >= len(left.name) else ""
        kind = next((edge for verb, edge in _RELATION_VERBS if verb in between), "related_to")
        links.append(Link(left.name, right.name, kind))
    return links
