"""Itachi's injections never invalidate the model's prompt cache between turns of one session.

A 5-turn stream-json session of the real Claude Code CLI with Itachi's hooks, against the
scripted fake model API: every request must start with the previous request's blocks up to its
last `cache_control` breakpoint (the conversation only appends), while the hooks did inject
(the session briefing once, memory matches on every prompt).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tests.conftest import RunningApi
from tests.e2e.test_claude_code_memory import (  # noqa: F401  (fixtures)
    PROJECT,
    claude,
    hook_env,
    itachi_home,
    repo,
    warm_api,
)
from tests.e2e.test_memory_at_the_right_moment import post
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.cache_prefix import broken_prefix, session_requests, turn_shares

pytestmark = pytest.mark.e2e

MEMORIES = [
    "We decided to store embeddings in pgvector with HNSW indexes, not IVFFlat.",
    "The notes service exposes its API under /v2 since the March release.",
    "Fixed the flaky export test by freezing the clock in the fixture.",
    "Database migrations are numbered files applied in order at startup.",
    "The search endpoint ranks by a hybrid of vector and text scores.",
]
FILLERS = ("the CLI colours", "the retry policy", "the docs theme", "the CI cache", "the logo")
PROMPTS = [
    "Which index type do we use for the embeddings in pgvector here?",
    "Under which path prefix does the notes service expose its API?",
    "How did we fix the flaky export test in this repository last time?",
    "How are database migrations applied when the service starts up?",
    "How does the search endpoint rank the results it returns to clients?",
]


def test_five_turns_with_itachi_keep_every_request_prefix_up_to_the_last_cache_breakpoint(
    claude: Path, repo: Path, itachi_home: Path, tmp_path: Path, warm_api: RunningApi  # noqa: F811
) -> None:
    for content in MEMORIES:
        post(warm_api, "/api/memory", {"project": PROJECT, "category": "decision", "content": content,
                                       "source": "user"})
    for topic in FILLERS:  # newer: they fill the briefing, so the prompts' matches are still news
        post(warm_api, "/api/memory", {"project": PROJECT, "category": "decision", "source": "user",
                                       "content": f"We decided to keep {topic} as it is for this release."})
    script = [Reply.text(f"Answer {n}.") for n in range(1, 6)]
    with FakeAnthropic(script) as fake:
        env = hook_env(fake, tmp_path / "claude-config", itachi_home, warm_api.url, warm_api.key)
        bodies = session_requests(claude, repo, env, PROMPTS, fake)
        sent = fake.all_request_text()
    assert len(bodies) == 5
    assert sent.count("=== Itachi Session Briefing") == 1 * 5  # written once, carried by every request
    # A fresh match list on the turns whose search beat the prompt hook's 0.5 s deadline (on a
    # busy machine not every one does): at least one must have, or nothing was tested.
    assert sent.count("=== Itachi Memory Context ===") >= 1
    breaks = [broken_prefix(a, b) for a, b in itertools.pairwise(bodies)]
    assert breaks == [None] * 4, breaks
    assert all(share > 0.5 for share in turn_shares(bodies)), turn_shares(bodies)
