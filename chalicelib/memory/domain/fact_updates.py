"""Knowledge updates: a later statement that restates a fact of an earlier one with another value.

Read sentence by sentence (code blocks skipped), so that one fact restated inside a long memory (a
conversation turn, a session summary) is found as well as a one-line note. A sentence is parsed
into its subject (stems of its plain words) and its values: numbers, versions, times, weekdays,
months, identifiers (paths, dotted, dashed with a digit or `quoted` names) and capitalised names
(a capitalised word opening a sentence is kept apart as its opening), each marked negated when a
negation precedes it in its clause ("..., not Fridays"). A later sentence updates an earlier one
when, about the same subject (shared stems or identifiers):
- it names one of the earlier sentence's values beside a change ("from 15 to 16", "now ...
  instead of 5", "Thursdays, not Fridays", "moved out of X into Y") and asserts a value the
  earlier lacks; or
- it swaps values one for one, kind for kind (a number for a number, a name for a name), with
  most of the subject shared or a change word ("now", "moved", ...) beside a shared stem, or
  with a change word the earlier lacks and all its words in the earlier; or
- it negates what the earlier one asserted ("we no longer squash merges").
Never an update: the same values reworded, a statement saying less, a value the later sentence
negates ("staging will not move to Postgres 16"), another subject (a value or name of the earlier
sentence with no counterpart: "the queue's visibility timeout is 180 s" beside "the API timeout
is 30 s"), or two sentences many values apart. The signals are general English, not phrasings.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\d])|\n+")
# Clauses split at a semicolon or bracket, a comma or colon before a space ("01:00" and "1,000"
# stay one value), a conjunction or a dash. A clause after a colon opens like a sentence ("Note:
# Remember ..."); after the others a capitalised word is a name ("we use Gradle; Maven was removed").
_CLAUSE = re.compile(r"(:)(?=\s|$)|[;()]|,(?=\s|$)|\s(?:but|while|whereas|because|so)\s|\s[-\u2013\u2014]\s")
_TOKEN = re.compile(r"`[^`]+`|https?://\S*[^\s.,;:!?)]|\d+(?:[.,:/-]\d+)*(?:[a-zA-Z%]+\b)?|[\w][\w'./@#+-]*[\w]|\w")
_IDENTIFIER = re.compile(r"[\w-]+[._/@#][\w./@#-]*\w|\w*[a-z][A-Z]\w*|\w*\d\w*|(?=[\w-]*\d)\w+(?:-\w+)+")
_TERM = r"(?:the\s+|a\s+)?`?([\w./:@#+-]*\w)`?"
_REPLACED = re.compile(rf"\b(?:from|out of)\s+{_TERM}\s+(?:to|into)\s+{_TERM}"
                       rf"|\b(?:instead of|rather than|not|no longer|replac\w*|formerly|previously|up from"
                       rf"|down from|used to be|was)\s+{_TERM}"
                       rf"(?:\s+(?:with|by)\s+{_TERM})?", re.I)
_WEEKDAYS = {w: w[:3] for w in _words("monday tuesday wednesday thursday friday saturday sunday")}
_MONTHS = {m: m[:3] for m in _words("january february march april june july august september october "
                                   "november december")}
_NUMBER_WORDS = _words("zero one two three four five six seven eight nine ten eleven twelve fifteen twenty "
                    "thirty forty fifty sixty hundred thousand million billion once twice half dozen "
                    "double triple")
_NEGATIONS = {"not", "no", "never", "none", "nor", "cannot", "dont", "doesnt", "didnt", "isnt",
              "arent", "wasnt", "werent", "wont", "cant", "shouldnt", "stop", "stopped"}
# Words that say a value changed: general English, not any one phrasing.
_CHANGE = _words("now currently anymore longer instead rather moved moving switched switch changed change "
                 "replaced replace raised lowered dropped increased decreased reduced bumped upgraded "
                 "downgraded migrated went became updated renamed frozen deprecated capped formerly "
                 "previously retired shifted shortened lengthened extended pushed postponed delayed "
                 "advanced resized scaled grew shrank expanded halved doubled tightened relaxed loosened "
                 "swapped removed deleted decommissioned nowadays")
# Phrases saying the same as "now"; read as "now" so that their words are not taken for the subject.
_NOW = re.compile(r"\b(?:these days|going forward|from now on|as of (?:today|this \w+|now)"
                  r"|t(?:ook|aken) over)\b", re.I)
_STOP = _words("a an the this that these those it its i we you he she they my our your his her their there "
            "here when where what which who why how if then so but and or also always please use using do "
            "does did make run runs add keep all any each every some most after before during until while "
            "since for from in on at to by with of as is are was were be been has have had can could "
            "should would will must may might yes ok just only now today set let about into out over "
            "under than them us me very more less new old get got one same other like per via")
MAX_CHANGED = 4  # values in one sentence and not the other, at most: beyond, other statements


@dataclass(frozen=True)
class Value:
    kind: str  # "number", "day", "month" or "name"
    text: str  # normalised
    negated: bool


@dataclass(frozen=True)
class Sentence:
    text: str
    subject: frozenset[str]  # stems of the plain words
    words: frozenset[str]  # every lower-case word, for values named as plain words ("npm")
    values: tuple[Value, ...]
    negated: frozenset[str]  # stems a negation applies to
    change: bool  # holds a change word
    replaced: tuple[tuple[str, str], ...]  # ("from X to Y", "Y instead of X", "not X"): (x, y or "")
    tokens: tuple[str, ...] = ()  # every token, lower case, in order; "|" between clauses
    value_tokens: frozenset[str] = frozenset()  # the tokens that are values, as written
    opening: str = ""  # a capitalised word opening it, lower case: perhaps a name ("Ines keeps ...")

    @property
    def asserted(self) -> frozenset[tuple[str, str]]:
        return frozenset((v.kind, v.text) for v in self.values if not v.negated)

    @property
    def named(self) -> frozenset[str]:
        return frozenset(v.text for v in self.values)

    @property
    def identifiers(self) -> frozenset[str]:
        """The names that are identifiers ("v2", "eu-west-1", `billing.py`): a subject as much as a value."""
        return frozenset(v.text for v in self.values if v.kind == "name" and _IDENTIFIER.fullmatch(v.text))


def _stem(word: str) -> str:
    """A crude stem: the same for "retries" / "retried", "deploys" / "deploy", "logs" / "log"."""
    for suffix in ("ies", "ied", "ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:6]


def _value(token: str, raw: str, sentence_start: bool, dated: bool = False) -> tuple[str, str] | None:
    """The value `token` is, if any; `dated`: a day of the month follows it ("May 30")."""
    lower = token.lower().replace("'", "")
    singular = lower[:-1] if lower.endswith("s") else lower
    if singular in _WEEKDAYS:
        return "day", _WEEKDAYS[singular]
    if lower in _MONTHS or (lower in ("may", "march") and token[:1].isupper()
                            and (dated or not sentence_start)):
        return "month", lower[:3]
    if token[:1].isdigit() or lower in _NUMBER_WORDS:
        return "number", lower
    if raw.startswith(("`", "http")) or _IDENTIFIER.fullmatch(token):
        return "name", lower
    if len(token) > 1 and lower not in _STOP and token[:1].isupper() \
            and (not sentence_start or token.isupper()):
        return "name", lower
    return None


_DAY_NEXT = re.compile(r"\s+\d{1,2}\b")


def _sentence(text: str) -> Sentence:
    subject: set[str] = set()
    words: set[str] = set()
    tokens: list[str] = []
    values: list[Value] = []
    negated: set[str] = set()
    raw_values: set[str] = set()
    opening = ""
    parts = _CLAUSE.split(_NOW.sub("now", text))
    for n, clause in enumerate(parts[::2]):
        opens = n == 0 or parts[2 * n - 1] == ":"  # a sentence's first clause, or one after a colon
        negating = target = False
        tokens.append("|")
        for match in _TOKEN.finditer(clause):
            raw = match.group(0)
            token = raw.strip("`")
            lower = token.lower().replace("'", "").replace("\u2019", "")
            sentence_start = opens and match.start() == len(clause) - len(clause.lstrip())  # "...: Sure, ..."
            words.add(lower)
            tokens.append(lower)
            if lower in _NEGATIONS or (raw.lower().endswith(("n't", "n\u2019t"))):
                negating = target = True
                continue
            found = _value(token, raw, sentence_start, bool(_DAY_NEXT.match(clause, match.end())))
            if found is not None:
                values.append(Value(found[0], found[1], negating))
                raw_values.add(lower)
                target = False
            elif lower.isalpha() and lower not in _STOP and lower not in _CHANGE and len(lower) > 2:
                subject.add(_stem(lower))
                if n == 0 and sentence_start and token[:1].isupper():
                    opening = lower
                if target:  # a negation applies to the first word it meets ("no longer squash")
                    negated.add(_stem(lower))
                    target = False
    replaced = tuple(((m.group(1) or m.group(3)).lower(), (m.group(2) or m.group(4) or "").lower())
                     for m in _REPLACED.finditer(text))
    return Sentence(text, frozenset(subject), frozenset(words), tuple(values), frozenset(negated),
                    bool(words & _CHANGE), replaced, tuple(tokens), frozenset(raw_values), opening)


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[Sentence, ...]:
    """The prose sentences of `text` (code blocks dropped), parsed."""
    prose = _FENCE.sub("\n", text)
    return tuple(_sentence(s.strip()) for s in _SENTENCE.split(prose) if len(s.strip()) > 3)


def _change_added(new: Sentence, old: Sentence) -> bool:
    """`new` says a change word `old` does not ("now" said anew, not "instead of X" said by both)."""
    return bool((new.words - old.words) & _CHANGE)


def _restated(new: Sentence, old: Sentence) -> bool:
    """The same sentence but for its values (and small words): aligned token by token, every
    difference is a value, a stop word or a change word, and a value differs. A content word
    differing ("the invoice cache" / "the session cache") makes it another subject; so does a name
    differing alone, unless `new` adds a change word: a name is more often what a sentence is about
    ("fixed the flaky test in test_a.py" / "in test_b.py") than a value it states."""
    values = new.value_tokens | old.value_tokens
    loose = values | _STOP | _CHANGE | {"|"}
    changed: set[str] = set()
    for op, i1, i2, j1, j2 in SequenceMatcher(None, old.tokens, new.tokens, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        differing = {*old.tokens[i1:i2], *new.tokens[j1:j2]}
        if not differing <= loose:
            return False
        changed |= differing & values
    names = {v.text for v in (*new.values, *old.values) if v.kind == "name"}
    if changed and {t.strip("`").replace("'", "") for t in changed} <= names:
        return _change_added(new, old)
    return bool(changed)


def _anchors(sentence: Sentence, value: str) -> set[str]:
    """The content words just before and after `value` in the sentence (its name, its unit)."""
    tokens = sentence.tokens
    out: set[str] = set()
    for i, token in enumerate(tokens):
        found = _value(token, token, False) if token in sentence.value_tokens else None
        if token == value or (found is not None and found[1] == value):
            for near in (tokens[i - 1] if i else "", tokens[i + 1] if i + 1 < len(tokens) else ""):
                if near and near not in ("|", token) and near not in _STOP and near not in _CHANGE:
                    out.add(_stem(near))
    return out


def _same_slot(new: Sentence, old: Sentence) -> bool:
    """A value only `new` asserts sits where a value of its kind only `old` asserts does: beside
    the same name or unit ("Python 3.10" / "Python 3.11", "6 nodes" / "9 nodes"), in a sentence
    at least half of whose words `old` shares."""
    new_only, old_only = new.asserted - old.asserted, old.asserted - new.asserted
    if 2 * len(new.subject & old.subject) < len(new.subject):  # most of what it speaks of is not in `old`
        return False
    if {k for k, _ in new_only} != {k for k, _ in old_only}:  # a value with no counterpart: another subject
        return False
    return any(kind == other and _anchors(new, text) & _anchors(old, was)
               for kind, text in new_only for other, was in old_only)


def _content(sentence: Sentence, token: str) -> bool:
    return token.isalpha() and token not in _STOP | _CHANGE and token not in sentence.value_tokens


def _qualifier_swapped(new: Sentence, old: Sentence) -> bool:
    """Another thing of the same kind: a word shared by both follows a different word on each
    side, each absent from the other ("the cache cluster" / "the search cluster")."""
    def before(sentence: Sentence) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for a, b in zip(sentence.tokens, sentence.tokens[1:], strict=False):
            if _content(sentence, a) and _content(sentence, b):
                out.setdefault(_stem(b), set()).add(_stem(a))
        return out
    new_before, old_before = before(new), before(old)
    return any((new_before[w] - old.subject) and (old_before[w] - new.subject)
               for w in new_before.keys() & old_before.keys())


def _swapped(new: Sentence, old: Sentence, fresh: frozenset[tuple[str, str]]) -> bool:
    """Every content word of `new` is in `old` (at least two), and for each kind of value `new`
    asserts anew, `old` holds one `new` does not name: a name opening `old` ("Ines owns ...") may
    be that value, where no other word tells a name from a capitalised first word."""
    if not _change_added(new, old):
        return False
    if len(new.subject) < 2 or not new.subject <= old.subject | {_stem(old.opening)}:
        return False
    held = {(k, t) for k, t in old.asserted if t not in new.named}
    if old.opening and old.opening not in new.words:
        held.add(("name", old.opening))
    return {k for k, _ in fresh} <= {k for k, _ in held}


def sentence_updates(new: Sentence, old: Sentence) -> bool:
    """Whether sentence `new` restates a fact of sentence `old` with another value (module doc)."""
    if new.text == old.text:
        return False
    shared = new.subject & old.subject | new.identifiers & old.identifiers  # "v2", "eu-west-1": a subject too
    if not shared:
        return False
    if len(new.named ^ old.named) > MAX_CHANGED or _qualifier_swapped(new, old):
        return False
    refused = any(v.negated for v in new.values)  # "we will not move to 16": a proposal turned down
    if new.negated & (old.subject - old.negated) and shared - new.negated and not refused:
        return True  # "we no longer squash merges"
    fresh = new.asserted - old.asserted
    old_terms = old.words | old.named
    for x, y in set(new.replaced) - set(old.replaced):  # "from X to Y": X the earlier value, Y another
        if x not in _STOP and x in old_terms and ((y and y not in old_terms) or fresh) \
                and shared - {_stem(x), _stem(y)}:
            return True
    if not fresh:  # nothing new asserted: a rewording, or a statement saying less
        return False
    kinds = {k for k, _ in fresh}
    if new.change and (any(v.kind in kinds and v.text in new.named | new.words for v in old.values)
                       or ("name" in kinds and old.opening in new.named)):
        return True  # a change naming the earlier value of a kind it asserts anew ("took over from Aiko")
    if new.change and _same_slot(new, old):
        return True  # "the search cluster now has 9 nodes" / "we run 6 nodes in the search cluster"
    if _swapped(new, old, fresh):
        return True  # "the checklist is owned by Omar now" / "Ines owns the checklist"
    return _restated(new, old)


def _statements(text: str) -> list[Sentence]:
    return [s for s in sentences(text) if not s.text.endswith("?")]  # a question states nothing


def updated(new: str, earlier: Sequence[str]) -> list[int]:
    """The indices of the `earlier` texts that `new` updates. Each sentence of `new` updates only
    the earlier sentences it updates sharing the most subject with it ("we raised the upload
    limit to 100 MB" updates "uploads are limited to 50 MB", not "avatars are limited to 50 MB")."""
    later = [s for s in _statements(new) if s.values or s.negated]
    olds = [(i, e) for i, text in enumerate(earlier) for e in _statements(text)]
    out: set[int] = set()
    for sentence in later:
        found = [(len(sentence.subject & e.subject), i) for i, e in olds if sentence_updates(sentence, e)]
        best = max((n for n, _ in found), default=0)
        out.update(i for n, i in found if n == best)
    return sorted(out)


def updated_sentences(new: str, old: str) -> list[str]:
    """The sentences of `old` that a sentence of `new` updates (empty: `new` updates nothing)."""
    later = [s for s in _statements(new) if s.values or s.negated]
    return [e.text for e in _statements(old) if any(sentence_updates(s, e) for s in later)]


def updates(new: str, old: str) -> bool:
    """True when `new`, a later statement, restates one of the facts of `old` with another value."""
    return bool(updated(new, [old]))


def search_words(text: str, limit: int = 6) -> list[list[str]]:
    """Per sentence of `text` that could update an earlier fact, its plain words, for finding the
    earlier statements it may update by full text: the sentences saying a value changed first
    (a change word, "from X to Y", a negation), then those holding a value; at most `limit`."""
    def words(s: Sentence) -> list[str]:
        return list(dict.fromkeys(t for t in s.tokens if t.isalpha() and t not in _STOP and len(t) > 2))
    facts = [s for s in _statements(text) if s.values or s.negated]
    changing = [s for s in facts if s.change or s.replaced or s.negated]
    chosen = (changing + [s for s in facts if s not in changing])[:limit]
    return [w for w in (words(s) for s in chosen) if w]
