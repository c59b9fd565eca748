"""Knowledge updates generated for `bench/knowledge_updates.py`: facts stated, then restated later.

Deterministic for a seed. Sixteen families of facts (`bench/knowledge_update_families.py`:
versions, schedules, counts, owners, endpoints, policies, regions, times, tools, dates...), each
with its own wordings for the first statement, for the updates (naming the old value or not) and
for a question about the current value, plus two kinds of traps: the same wording about another
subject ("the reporting service runs on Python 3.12" beside the billing service's) and a negated
proposal ("we will not move the billing service to Python 3.13"). The families are split in two
halves by the seed: one the update rule may be tuned on, one held out. A project takes its facts
from one half only; each fact is stated, then updated once or twice in later sessions, among notes
about other work. Nothing here was written with Itachi's rule in view. The rule was since changed
with both halves' wordings read (2026-11-28). `FRESH`: twelve more families written afterwards by
someone who had not read the rule; measured once, then read and used to change the rule (a
development set). `UNSEEN`: twelve more, written by another who had not read the rule either,
and not read by the rule's author before it was measured: the held-out set (its note says which
families have been read since).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.knowledge_update_families import FAMILIES, Family
from bench.knowledge_update_fresh import FRESH
from bench.knowledge_update_unseen import UNSEEN

NOTES = (
    "Fixed the flaky test in test_{w}.py by waiting for the queue to drain instead of sleeping.",
    "The {w} importer skips rows without an email address and logs their line numbers.",
    "Renamed the {w} helper to make its side effects obvious; callers were updated in the same PR.",
    "The {w} endpoint returns 404 for unknown ids and 403 for ids of another tenant.",
    "Profiling showed the {w} job spends most of its time serialising JSON.",
    "The {w} migration adds an index concurrently so it does not lock the table.",
    "Added a retry with jitter around the {w} client; it gives up after {n} attempts.",
    "The {w} worker processes {n} messages per batch and acknowledges them together.",
    "Code review note: the {w} module mixes parsing and I/O, split it before adding features.",
    "The {w} cache is keyed by tenant and user id; entries live {n} minutes.",
)
WORDS = ("invoice", "export", "search", "upload", "audit", "webhook", "report", "session", "ledger", "notify")


def split(seed: int) -> dict[str, list[Family]]:
    """The families in two halves by the seed, "tuning" and "held-out", the "fresh" and "unseen" ones."""
    order = list(FAMILIES)
    random.Random(seed).shuffle(order)
    half = len(order) // 2
    return {"tuning": order[:half], "held-out": order[half:], "fresh": list(FRESH), "unseen": list(UNSEEN)}


def project(rng: random.Random, name: str, families: list[Family], start: datetime) -> dict[str, Any]:
    """One project's notes over six sessions two days apart, and its questions."""
    sessions: list[list[dict[str, Any]]] = [[] for _ in range(6)]
    questions: list[dict[str, Any]] = []
    for k, family in enumerate(rng.sample(families, min(6, len(families)))):
        values = rng.sample(family.values, 3)
        changes = 1 + (k % 2)  # updated once or twice
        times = sorted(rng.sample(range(6), changes + 1))
        chain: list[str] = []
        for step, session in enumerate(times):
            text = (rng.choice(family.states).format(v=values[0]) if step == 0 else
                    rng.choice(family.updates).format(v=values[step], old=values[step - 1]))
            ident = f"{name}-{family.name}-{step}"
            sessions[session].append({"id": ident, "text": text, "fact": family.name})
            chain.append(ident)
        spare = [v for v in family.values if v not in values[:changes + 1]] or [values[0]]
        if rng.random() < 0.5:
            sessions[rng.randrange(6)].append({"id": f"{name}-{family.name}-other", "fact": "",
                                               "text": family.other.format(v=rng.choice(family.values))})
        if rng.random() < 0.5:
            sessions[rng.randrange(times[-1], 6)].append({"id": f"{name}-{family.name}-refused", "fact": "",
                                                          "text": family.refused.format(v=rng.choice(spare))})
        questions.append({"qid": f"{name}-{family.name}", "text": family.question, "current": chain[-1],
                          "outdated": chain[:-1], "chain": chain})
    for s, notes in enumerate(sessions):
        for n in range(rng.randint(3, 6)):
            template, word = rng.randrange(len(NOTES)), rng.choice(WORDS)
            text = NOTES[template].format(w=word, n=rng.choice((3, 5, 10, 20, 50)))
            # the same note about the same thing with another number is an update of it
            note = {"id": f"{name}-note-{s}-{n}", "text": text, "fact": f"note {template} {word}"}
            notes.insert(rng.randint(0, len(notes)), note)
    dated = [{"date": (start + timedelta(days=2 * s)).isoformat(), "notes": notes}
             for s, notes in enumerate(sessions)]
    return {"id": name, "sessions": dated, "questions": questions}


def generate(projects: int, seed: int) -> dict[str, Any]:
    """`projects` projects per half, deterministic for `seed`."""
    rng = random.Random(seed)
    start = datetime(2026, 4, 6, 9, tzinfo=UTC)
    return {"seed": seed, "halves": {
        half: [project(rng, f"ku-{half}-{i + 1}", families, start + timedelta(days=30 * i))
               for i in range(projects)]
        for half, families in split(seed).items()}}
