"""The near-duplicate guard: two similar texts may merge only if they state the same facts.

Embeddings see "deploy on 3 May" and "deploy on 4 May" as near twins; a memory store must
not. Before a near-duplicate reinforces an existing memory, both texts must carry the same
salient tokens (numbers, dates, names and identifiers) and the same polarity (an odd number of
negations on one side only means they contradict each other). The guard errs towards keeping
both memories: a missed merge costs a line, a wrong merge loses a fact.
"""

from __future__ import annotations

import re
from typing import Literal


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MONTHS = _words("january february march april may june july august september october november december "
           "jan feb mar apr jun jul aug sep sept oct nov dec")
_AMBIGUOUS_MONTHS = {"may", "march", "jan", "mar", "sep"}  # also ordinary words in lower case
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri sat sun"
_RELATIVE_DAYS = {"today", "tomorrow", "yesterday", "tonight", "weekend", "weekday", "noon", "midnight"}
_PERIODS = _words(f"week month year quarter morning evening night spring summer autumn fall winter "
                  f"{_WEEKDAYS}")
_NUMBER_WORDS = _words(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
     "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
     "thousand million billion first second third fourth fifth sixth seventh eighth ninth tenth once "
     "twice thrice half dozen double triple"
)
_NEGATIONS = {"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "cannot", "without",
              "avoid", "avoids", "avoided", "disable", "disabled", "forbid", "forbidden", "stop", "stopped",
              "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont", "cant", "shouldnt",
              "mustnt", "neednt", "havent", "hasnt"}
# Capitalised only because they open a sentence: not names.
_STARTERS = _words(
    "a an the this that these those it its i we you he she they my our your his her their there here "
     "when where what which who why how if then so but and or also always never please use using do does "
     "did don't dont make run add remove keep prefer avoid note remember all any each every some most "
     "after before during until while since for from in on at to by with without of as is are was were "
     "be been has have had can could should would will must may might yes no not ok okay hey hi hello "
     "thanks thank sure well just only now today tomorrow yesterday set fix check see try let"
)
_FILLER = _words("a an the to be it this that any ever even always really just at all so")
_TOKEN = re.compile(r"`[^`]+`|https?://\S+|[\w][\w'./:@#+-]*[\w]|\w")
_BREAK = re.compile(r"[.!?;:\n]|^\s*[-*#>]+\s*$")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_IDENTIFIER = re.compile(
    r"[\w-]+[._/@#][\w./@#-]*\w|\w*[a-z][A-Z]\w*|\w*\d\w*[A-Za-z]\w*|\w*[A-Za-z]\w*\d\w*"
)


def _scan(text: str) -> tuple[set[str], set[str], set[str]]:
    """(salient tokens, capitalised sentence openers that may be names, lower-case words)."""
    found: set[str] = set()
    openers: set[str] = set()
    plain: set[str] = set()
    previous_end = 0
    for match in _TOKEN.finditer(text):
        sentence_start = previous_end == 0 or bool(_BREAK.search(text[previous_end:match.start()]))
        previous_end = match.end()
        raw = match.group(0)
        token = raw.strip("`")
        lower = token.lower().replace("'", "")
        found.update(_NUMBER.findall(token))
        literal = raw.startswith(("`", "http")) or _IDENTIFIER.fullmatch(token)
        if literal or lower in _NUMBER_WORDS or lower in _RELATIVE_DAYS or lower in _PERIODS:
            found.add(lower)
        elif lower in _MONTHS and (lower not in _AMBIGUOUS_MONTHS or token[:1].isupper()):
            found.add(lower[:3])
        elif token[:1].isupper() and not sentence_start:
            found.add(lower)
        elif token[:1].isupper() and lower not in _STARTERS:
            openers.add(lower)
        elif token[:1].islower():
            plain.add(lower)
    return found, openers, plain


def salient_tokens(text: str) -> frozenset[str]:
    """Numbers, dates, names and identifiers in `text`, normalised for comparison.

    A capitalised word opening a sentence counts as a name here; `same_facts` is subtler.
    """
    found, openers, _ = _scan(text)
    return frozenset(found | openers)


def polarity(text: str) -> int:
    """1 when `text` carries an odd number of negations, else 0."""
    words = re.findall(r"[a-z']+", text.lower())
    count = sum(1 for w in words if w.replace("'", "") in _NEGATIONS or w.endswith("n't"))
    return count % 2


def negated_words(text: str) -> frozenset[str]:
    """The word each negation applies to ("use pnpm not npm" -> {"npm"}), skipping filler words."""
    words = [w.replace("'", "") for w in re.findall(r"[a-z0-9']+", text.lower())]
    out: set[str] = set()
    for i, word in enumerate(words):
        if word in _NEGATIONS:
            following = next((w for w in words[i + 1:] if w not in _FILLER), None)
            if following:
                out.add(following)
    return frozenset(out)


def same_facts(a: str, b: str) -> bool:
    """True when `a` and `b` may be the same statement reworded (same salient tokens and polarity).

    A capitalised sentence opener ("Deploy ...") is a name unless the other text uses the same
    word in lower case ("... deploy using ...").
    """
    if polarity(a) != polarity(b) or negated_words(a) != negated_words(b):
        return False
    found_a, openers_a, plain_a = _scan(a)
    found_b, openers_b, plain_b = _scan(b)
    return found_a | (openers_a - plain_b) == found_b | (openers_b - plain_a)


def _asserted_words(text: str) -> frozenset[str]:
    """Words the text states without a negation in front of them."""
    words = [w.replace("'", "") for w in re.findall(r"[a-z0-9']+", text.lower())]
    negated_at: set[int] = set()
    for i, word in enumerate(words):
        if word in _NEGATIONS:
            following = next((j for j in range(i + 1, len(words)) if words[j] not in _FILLER), None)
            if following is not None:
                negated_at.add(following)
    return frozenset(w for i, w in enumerate(words) if i not in negated_at and w not in _NEGATIONS)


def consistent(a: str, b: str) -> bool:
    """True when one of `a`, `b` states everything the other does, perhaps with more specifics.

    One side's negations are a subset of the other's, nothing negated on one side is stated on
    the other, and the salient tokens of one include the other's: "use yarn 4, not npm, in web/"
    refines "use yarn"; "-n 8" changes "-n 4"; "npm, not yarn" contradicts "yarn, not npm";
    "never run it" contradicts "always run it"; "use npm for installs" changes "use yarn for
    installs" (each names a thing the other does not: `substituted`).
    """
    negated_a, negated_b = negated_words(a), negated_words(b)
    if not (negated_a <= negated_b or negated_b <= negated_a):
        return False
    # A word one side negates and the other asserts without negating it too ("not npm, because
    # npm rewrites..." negates npm and names it again: no contradiction of itself).
    if negated_a & (_asserted_words(b) - negated_b) or negated_b & (_asserted_words(a) - negated_a):
        return False
    if substituted(a, b):
        return False
    found_a, openers_a, plain_a = _scan(a)
    found_b, openers_b, plain_b = _scan(b)
    facts_a, facts_b = found_a | (openers_a - plain_b), found_b | (openers_b - plain_a)
    return facts_a <= facts_b or facts_b <= facts_a


def _content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in _asserted_words(text)
                     if len(w) > 2 and not w.isdigit() and w not in _STARTERS and w not in _FILLER)


def _akin(a: str, b: str) -> bool:
    """The same word or an inflection of it ("push" / "pushing", "indent" / "indentation")."""
    short, long = sorted((a, b), key=len)
    return long.startswith(short) or (len(short) >= 5 and long[:5] == short[:5])


def _exclusive(a: str, b: str) -> tuple[set[str], set[str]]:
    words_a, words_b = _content_words(a), _content_words(b)
    return ({w for w in words_a if not any(_akin(w, v) for v in words_b)},
            {w for w in words_b if not any(_akin(w, v) for v in words_a)})


def substituted(a: str, b: str) -> bool:
    """Whether each side states a content word the other lacks: one thing swapped for another
    ("use yarn for installs" / "use npm for installs"), not a refinement that only adds words."""
    only_a, only_b = _exclusive(a, b)
    return bool(only_a) and bool(only_b)


def swapped(a: str, b: str) -> bool:
    """Whether `a` and `b` say the same thing but for one word each ("yarn" for "npm")."""
    only_a, only_b = _exclusive(a, b)
    return len(only_a) == 1 and len(only_b) == 1 and bool(_content_words(a) - only_a)


Reconciliation = Literal["reinforce", "supersede", "flag"]


def reconcile(new: str, old: str, *, new_trust: float, old_trust: float) -> Reconciliation:
    """What a new statement does to a stored one it is near-identical to (by embedding).

    The one rule for stores that merge similar statements (project rules, graph facts): only
    a consistent statement (the same facts, or a refinement of them) reinforces. One that
    contradicts the stored statement or changes a fact in it never reinforces it: it supersedes
    it when it is at least as trusted (a user's teaching over a rule inferred from a session),
    and is otherwise kept beside it, flagged as contradicting it. (Memories merge only on
    `same_facts`, stricter still: a refinement is kept as a memory of its own.)
    """
    if consistent(new, old):
        return "reinforce"
    return "supersede" if new_trust >= old_trust else "flag"
