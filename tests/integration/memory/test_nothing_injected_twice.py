"""Nothing is injected twice in a session, across SessionStart, the prompt hook and recall.

The real hook scripts (`python -I -S hooks/launch.py <name>`, as Claude Code runs them) against the API on
a real HTTP server over Postgres: a memory the SessionStart briefing carried is not injected
again by the prompt hook nor by recall after a Read, a memory a prompt brought is not brought
again by a later prompt, and after a compaction (a fresh context) the briefing starts the list anew.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.installers.install_hooks import launch_argv
from tests.conftest import RunningApi

PROJECT = "github.com/acme/twice"
DECISION = "We decided the notes API is served under the /v2 path prefix since the March release."
FACTS = [
    "The notes API allows at most 50 requests per second per client before it answers 429.",
    "The notes API returns its errors as RFC 7807 problem documents with a type URL.",
    "The notes API paginates listings with an opaque cursor, never with page numbers.",
    "The notes API signs its webhooks with an HMAC header named X-Notes-Signature.",
    "The notes API keeps deleted notes for 30 days before purging them for good.",
    "The notes API accepts note bodies of at most 1 MB and refuses larger ones with 413.",
]
PROMPTS = [
    "Which path prefix and rate limit does the notes API give its clients?",
    "How does the notes API report errors and paginate the listings it returns?",
    "How are the notes API's webhooks signed and how long are deleted notes kept?",
]
SLOW_BOX = {"ITACHI_RECALL_BUDGET_S": "1.8"}  # a busy test machine embeds a query in over 0.5 s


class Session:
    """One Claude Code session's hooks, run as Claude Code runs them."""

    def __init__(self, api: RunningApi, root: Path, session_id: str) -> None:
        self.api, self.session_id, self.cwd = api, session_id, root / "repo"
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "ITACHI_HOME": str(root / "home"),
                    "CLAUDE_CONFIG_DIR": str(root / "claude"), "ITACHI_API_URL": api.url,
                    "ITACHI_API_KEY": api.key, "ITACHI_PROJECT": PROJECT, **SLOW_BOX}

    def hook(self, name: str, event: str, **payload: Any) -> str:
        body = {"session_id": self.session_id, "cwd": str(self.cwd), "hook_event_name": event, **payload}
        done = subprocess.run(launch_argv(name, sys.executable), input=json.dumps(body).encode(),
                              cwd=self.cwd, env=self.env, capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]) if done.stdout else ""

    def start(self, source: str = "startup") -> str:
        return self.hook("session_start", "SessionStart", source=source)

    def prompt(self, prompt: str, *, expect_some: bool) -> str:
        """The memory block the prompt hook injected; retried while the box missed its deadline."""
        for _ in range(5 if expect_some else 1):
            text = self.hook("user_prompt_submit", "UserPromptSubmit", prompt=prompt)
            block = text.split("=== Itachi Graph Memory ===")[0]
            if block.strip() or not expect_some:
                return block
        pytest.fail(f"the prompt hook injected nothing for {prompt!r} in 5 tries")

    def read(self, path: str) -> str:
        return self.hook("post_tool_use", "PostToolUse", tool_name="Read",
                         tool_input={"file_path": str(self.cwd / path)}, tool_response={"type": "text"})


@pytest.fixture
def stored(api: RunningApi) -> None:
    api.container.warm_up()
    # The facts first: the decision and the newer ones after it fill the briefing (newest five).
    for fact in FACTS:
        api.call("POST", "/api/memory", {"project": PROJECT, "category": "fact", "content": fact,
                                           "source": "user"})
    api.call("POST", "/api/memory", {"project": PROJECT, "category": "decision", "content": DECISION,
                                       "files": ["notes/api.py"], "source": "user"})
    for topic in ("the CLI colours", "the retry policy", "the docs theme", "the CI cache"):
        content = f"We decided to keep {topic} as it is for this release."
        api.call("POST", "/api/memory", {"project": PROJECT, "category": "decision", "source": "user",
                                           "content": content})


def _facts_in(text: str) -> set[str]:
    return {fact for fact in FACTS if fact[:60] in text}


def test_the_briefings_memories_and_each_prompts_memories_are_injected_once(
        api: RunningApi, stored: None, tmp_path: Path) -> None:
    # Without the briefing, the first prompt would bring the decision: it matches best.
    plain = api.call("GET", "/api/memory/search", query=PROMPTS[0], project=PROJECT, project_limit=3,
                  global_limit=2, mode="hybrid")
    assert DECISION in [hit["content"] for hit in plain["results"]]
    assert api.call("GET", "/api/memory/recall", project=PROJECT, file="notes/api.py")["results"]

    session = Session(api, tmp_path, "session-once")
    briefing = session.start()
    assert DECISION in briefing and not _facts_in(briefing)
    blocks = [session.prompt(PROMPTS[0], expect_some=True)]
    blocks += [session.prompt(p, expect_some=False) for p in PROMPTS[1:]]
    blocks.append(session.prompt(PROMPTS[0], expect_some=False))  # the first question again
    assert all(DECISION not in block for block in blocks), blocks
    seen = [_facts_in(block) for block in blocks]
    assert seen[0], blocks
    every = [fact for found in seen for fact in found]
    assert len(every) == len(set(every)), blocks  # no fact twice
    assert seen[-1] == set(), blocks[-1]
    # Reading the file the decision names: recall has nothing the session was not given.
    assert session.read("notes/api.py") == ""

    # A fresh session is given the decision by recall (so the empty answer above was the rule at work).
    fresh = Session(api, tmp_path / "other", "session-fresh")
    assert DECISION in fresh.read("notes/api.py")


def test_after_a_compaction_the_briefing_starts_the_list_anew(
        api: RunningApi, stored: None, tmp_path: Path) -> None:
    session = Session(api, tmp_path, "session-compacted")
    session.start()
    first = _facts_in(session.prompt(PROMPTS[0], expect_some=True))
    assert first and not _facts_in(session.prompt(PROMPTS[0], expect_some=False)) & first

    assert DECISION in session.start("compact")  # the summary replaced what was injected
    assert _facts_in(session.prompt(PROMPTS[0], expect_some=True)) & first
