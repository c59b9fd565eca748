"""Other names an entity answers to, read from wording: "Site Reliability Engineering (SRE)",
"SRE (Site Reliability Engineering)", "Buildkite (aka BK)", "Buildkite, also known as BK", a
person's first name ("Dana Smith" is also "Dana") and the spellings of one name ("billing
service", "billing-service", "billing_service").

Aliases are stored as normalised keys (`names.normalise_name`) in the entity's
`attributes.aliases`: entity lookup compares them with the keys a text mentions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from chalicelib.graph.domain.names import normalise_name

MAX_ALIASES = 20
_MAX_VARIANT_WORDS = 4
_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9&]{1,9})\s*\)")
_EXPANSION = re.compile(r"\b([A-Z][A-Z0-9&]{1,9})\s*\(\s*([A-Za-z][^()]{3,80}?)\s*\)")
_AKA = re.compile(
    r"\s*(?:\(\s*|,\s*)(?:aka|a\.k\.a\.?|also known as|also called|known as|or simply)\s+"
    r"([^,;()]{1,60}?)\s*(?=\)|,|;|\.(?:\s|$)|$)",
    re.I,
)
_JOINERS = frozenset({"of", "and", "&", "for", "the", "de", "on", "in"})
_WORD = re.compile(r"[A-Za-z0-9][\w'&.-]*")


def spellings(name: str) -> list[str]:
    """The same name with spaces, hyphens and underscores swapped: for names of up to 4 words that
    are written in lower case or joined ("billing service", "billing-service"), not for proper
    names ("Dana Smith")."""
    if not (name == name.lower() or "-" in name or "_" in name):
        return []
    key = normalise_name(name)
    words = re.split(r"[\s_-]+", key)
    if len(words) < 2 or len(words) > _MAX_VARIANT_WORDS:
        return []
    return [v for v in (" ".join(words), "-".join(words), "_".join(words)) if v != key]


def alias_keys(name: str, aliases: Iterable[str]) -> list[str]:
    """The normalised aliases to store for `name`: the given ones and every name's spellings."""
    key = normalise_name(name)
    found: dict[str, None] = {}
    for alias in [name, *aliases]:
        alias_key = normalise_name(alias)
        for candidate in (alias_key, *spellings(alias)):
            if len(candidate) >= 2 and candidate != key:
                found.setdefault(candidate, None)
    return list(found)[:MAX_ALIASES]


def first_name(name: str) -> str | None:
    """A person's first name when `name` is "First Last" (or "First Middle Last")."""
    words = name.split()
    if 2 <= len(words) <= 3 and all(w[:1].isupper() and w.isalpha() for w in words):
        return words[0]
    return None


def _initials_match(words: list[str], acronym: str) -> list[str] | None:
    """The shortest run of trailing `words` whose initials spell `acronym` (joiners skipped)."""
    letters = [c for c in acronym.upper() if c.isalnum()]
    taken: list[str] = []
    for word in reversed(words):
        if not letters:
            break
        if word[:1].upper() == letters[-1]:
            letters.pop()
            taken.insert(0, word)
        elif word.lower() in _JOINERS and taken:
            taken.insert(0, word)
        else:
            return None
    return taken if not letters and taken else None


def alias_pairs(sentence: str, names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(name, alias) pairs a sentence states; `names` are the entity names found in it."""
    pairs: list[tuple[str, str]] = []
    for match in _ACRONYM.finditer(sentence):
        acronym = match.group(1)
        if sum(c.isupper() for c in acronym) < 2:
            continue
        words = _WORD.findall(sentence[: match.start()])
        run = _initials_match(words[-(2 * len(acronym) + 2) :], acronym)
        if run:
            pairs.append((" ".join(run), acronym))
    for match in _EXPANSION.finditer(sentence):
        acronym, expansion = match.group(1), match.group(2).strip()
        if _initials_match(_WORD.findall(expansion), acronym):
            pairs.append((expansion, acronym))
    known = sorted(names, key=len, reverse=True)
    for match in _AKA.finditer(sentence):
        before = sentence[: match.start()].rstrip()
        owner = next((n for n in known if before.lower().endswith(n.lower())), None)
        if owner is None:
            words = _WORD.findall(before)
            owner = words[-1] if words else None
        alias = re.sub(r"^(?:the|a|an)\s+", "", match.group(1).strip(), flags=re.I)
        if owner and alias and normalise_name(alias) != normalise_name(owner):
            pairs.append((owner, alias))
    return pairs
