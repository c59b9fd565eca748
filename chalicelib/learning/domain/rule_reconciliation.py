"""The one reconciler of the instruction store: what a new rule does to the live ones.

Every door (a prompt's graph instructions, `/learn`, extraction, `remember`, imports, MCP) ends
here. The closest live rule, when it is near-identical by embedding (> 0.85), is judged by the
memory core's rule (`dedup_guard.reconcile`): a consistent restatement or refinement reinforces
it; a contradiction or a changed fact supersedes it when the new rule is at least as trusted,
and is otherwise flagged. Less similar rules on the same subject are judged by the graph's
wording rules (`reconcile_rules.judge`): an explicit replacement supersedes, opposite polarity
without one is an unclear clash, flagged for a person (unless a person states the new rule: then it
supersedes); the same rule naming one thing in place of
another ("use npm for installs" after "use yarn for installs") is a changed rule, judged as a
near-identical contradiction is. A rule imported from a file never
silently replaces a rule from elsewhere: that clash is flagged too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from chalicelib.graph.domain.reconcile_rules import CONTRADICTION, SUPERSEDES, judge, same_subject
from chalicelib.memory.domain.dedup_guard import reconcile, swapped

NEAR_IDENTICAL = 0.85
SAME_SUBJECT = 0.35
SWAP_SIMILARITY = 0.6

Verdict = Literal["new", "reinforce", "supersede", "flag"]


@dataclass(frozen=True)
class Known:
    """A live rule compared with the new one (cosine similarity in [-1, 1])."""

    id: str
    text: str
    similarity: float
    confidence: float
    file: str | None = None  # the file it was imported from, if any


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    old: Known | None = None
    reason: str = ""


@dataclass(frozen=True)
class StatedRule:
    """A rule a prompt stated, as the graph's store pipeline hands it over: its graph node, wording,
    memory source, and the graph reconciler's verdict on it against an older node (`supersede` or
    `flag`, the older node, why), which is the verdict when that node's rule is live here."""

    node: str
    text: str
    source: str
    judged: tuple[Verdict, str, str] | None = None


def decide(text: str, confidence: float, known: Sequence[Known], *, file: str | None = None,
           person: bool = False) -> Decision:
    """The verdict for a new rule against the live ones (best first); `person`: a person states it
    now (`/learn`), which settles an unclear clash in its favour."""
    ranked = sorted(known, key=lambda k: k.similarity, reverse=True)
    decision = Decision("new")
    if ranked and ranked[0].similarity > NEAR_IDENTICAL:
        closest = ranked[0]
        verdict = reconcile(text, closest.text, new_trust=confidence, old_trust=closest.confidence)
        decision = Decision(verdict, closest, "near-identical wording")
    else:
        for old in ranked:
            if old.similarity < SAME_SUBJECT:
                break
            judged = judge(text, old.text)
            if judged.verdict == SUPERSEDES:
                decision = Decision("supersede", old, judged.reason)
                break
            if judged.verdict == CONTRADICTION:
                decision = Decision("supersede" if person and file is None else "flag", old, judged.reason)
                break
            if old.similarity >= SWAP_SIMILARITY and same_subject(text, old.text) and swapped(text, old.text):
                # One thing named in place of another ("use npm" for "use yarn"): a changed rule.
                verdict = reconcile(text, old.text, new_trust=confidence, old_trust=old.confidence)
                decision = Decision(verdict, old, "the same rule naming one thing in place of another")
                break
    if decision.verdict == "supersede" and file is not None and decision.old is not None \
            and decision.old.file != file:
        return Decision("flag", decision.old, f"a rule of {file} contradicts a rule from elsewhere")
    return decision
