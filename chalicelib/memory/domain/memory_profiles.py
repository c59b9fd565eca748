"""Built-in memory profiles (seed 002's db-manager): named datasets a project can load.

`noisy-large` is 20,000 generated items for scale tests: facts, decisions, code changes,
conversation turns and patterns about a made-up service, with noise (typos, filler, near
repeats with other numbers, stray identifiers) and dates spread over a year. `small-baseline`
is the first 200 of the same stream. Generation is deterministic (a fixed seed): the same
profile is the same rows everywhere. Items carry no vector (`itachi memory check --fix`
computes them; full-text search works at once).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.memory_tags import auto_tags, merge_tags

PROFILES: dict[str, int] = {"noisy-large": 20_000, "small-baseline": 200}
_BASE = datetime(2026, 1, 1, tzinfo=UTC)
_SUBJECTS = ["the billing worker", "the auth service", "the search index", "the deploy pipeline",
             "the upload queue", "the cache layer", "the mobile client", "the nightly export",
             "the rate limiter", "the schema migration"]
_VERBS = ["times out after", "was moved to", "depends on", "retries", "broke because of", "now uses",
          "must not call", "was rewritten with", "logs through", "is guarded by"]
_OBJECTS = ["Redis 7.2", "Postgres 16", "a 30 s deadline", "the SQS DLQ", "pgvector HNSW", "boto3 1.34",
            "the feature flag api_v2", "chalicelib/cache.py", "three workers", "the staging stack"]
_CATEGORIES = ["fact", "decision", "code_change", "conversation", "pattern"]
_FILLER = ["honestly", "I think", "as discussed", "for now", "again", "btw", "iirc", "more or less"]


def _typo(word: str, rng: random.Random) -> str:
    if len(word) < 4:
        return word
    i = rng.randrange(len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def generate(profile: str, project: str) -> Iterator[MemoryDraft]:
    """The profile's items for `project`, in a fixed order (KeyError for an unknown profile)."""
    total = PROFILES[profile]
    rng = random.Random(20_000)
    seen: set[str] = set()
    for i in range(total):
        words = f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}".split()
        if rng.random() < 0.3:
            words = [_typo(w, rng) if rng.random() < 0.2 else w for w in words]
        if rng.random() < 0.4:
            words.insert(rng.randrange(len(words)), rng.choice(_FILLER))
        text = " ".join(words).capitalize()
        text += f" (run {rng.randrange(1, 500)}, ticket OPS-{rng.randrange(9999)})."
        if rng.random() < 0.2:
            text += f" See job_{rng.randrange(100)} on host-{rng.randrange(20)}.internal."
        category = _CATEGORIES[i % len(_CATEGORIES)]
        draft = MemoryDraft(project=project, category=category, content=text,
                            created_at=_BASE + timedelta(minutes=rng.randrange(525_600)),
                            metadata={"profile": profile})
        if draft.content_hash in seen:
            draft = MemoryDraft(project=project, category=category, content=f"{text} #{i}",
                                created_at=draft.created_at, metadata=draft.metadata)
        seen.add(draft.content_hash)
        yield MemoryDraft(project=project, category=category, content=draft.content,
                          created_at=draft.created_at, metadata=draft.metadata,
                          tags=merge_tags(auto_tags(category, (), draft.content)))
