"""The prompt hook inside Claude Code's subagents, with the real CLI's Agent tool against the
scripted model and a real Itachi API.

What the CLI shows (2.1.330): a subagent's delegation prompt fires no UserPromptSubmit; its start
fires SubagentStart (`agent_id`, `agent_type`), whose context reaches the subagent's first
request; its report comes back to the main session as a UserPromptSubmit whose prompt is a
`<task-notification>`. By default (`ITACHI_SUBAGENT_INJECTION=rules`) the subagent starts with
the project's rules and no search results, and the report is not searched; `full` adds the search
results; `off` injects nothing. The characters each mode injects are measured from the hooks'
own answers (`--include-hook-events`) and printed for docs/benchmarks.md.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.e2e.test_claude_code_memory import (  # noqa: F401  # fixtures
    ACCEPT_EDITS,
    PROJECT,
    claude,
    hook_env,
    itachi_home,
    repo,
    warm_api,
)
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import run_print

pytestmark = pytest.mark.e2e
RULE = "Run the notes migrations before starting the service"
FACTS = [  # more than the SessionStart briefing shows (5 recent), so a search finds unseen ones
    "The notes service stores embeddings in pgvector with HNSW indexes on the embeddings table.",
    "The notes service report job summarises embeddings coverage every night at two.",
    "Subagent reports about the notes service embeddings go to the docs/reports folder.",
    "The notes service embeddings table is vacuumed weekly because HNSW indexes bloat.",
    "The notes service rebuilds its HNSW indexes after each pgvector upgrade.",
    "The notes service keeps 1536-dimension embeddings from the text-embedding-3-small model.",
    "The notes service stores its embeddings beside the note id, one row per chunk.",
    "The notes service report done marker is written to the service log after each job.",
]
DELEGATED = "Find how the notes service stores its embeddings and report back what you find."
REPORT = "The notes service stores its embeddings in pgvector with HNSW indexes; report done."


def post(api: RunningApi, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(api.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={**api.headers, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def injected_by_event(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """What each hook call answered as additionalContext ('' for nothing), by hook event, in order."""
    found: dict[str, list[str]] = {}
    for e in events:
        if e.get("type") != "system" or e.get("subtype") != "hook_response":
            continue
        context = ""
        for line in str(e.get("stdout") or e.get("output") or "").splitlines():
            try:
                context = (json.loads(line).get("hookSpecificOutput") or {}).get("additionalContext") or ""
            except (ValueError, AttributeError):
                continue
        found.setdefault(str(e.get("hook_event") or e.get("hook_name")), []).append(context)
    return found


def delegate_once(claude: Path, repo: Path, home: Path, config: Path, api: RunningApi,  # noqa: F811
                  mode: str) -> tuple[dict[str, list[str]], str]:
    script = [Reply.tool_use("Agent", {"description": "embeddings storage", "prompt": DELEGATED,
                                       "subagent_type": "general-purpose"}),
              Reply.text(REPORT), Reply.text("Waiting for the subagent."),
              Reply.text("The subagent reported.")]
    with FakeAnthropic(script) as fake:
        env = hook_env(fake, config, home, api.url, api.key)
        env["ITACHI_SUBAGENT_INJECTION"] = mode
        run = run_print(claude, "Please ask a subagent how the notes service stores its embeddings.",
                        cwd=repo, env=env, args=[*ACCEPT_EDITS, "--include-hook-events"], timeout=180)
        assert run.returncode == 0, run.stderr
        sub_requests = [json.dumps(r.body) for r in fake.conversation_requests() if DELEGATED in json.dumps(
            (r.body.get("messages") or [{}])[0])]
    return injected_by_event(run.events), "\n".join(sub_requests)


def test_subagents_get_the_rules_by_default_the_search_results_when_full_and_nothing_when_off(
    claude: Path, repo: Path, itachi_home: Path, tmp_path: Path, warm_api: RunningApi,  # noqa: F811
) -> None:
    api = warm_api
    assert post(api, "/api/project/rules", {"project": PROJECT, "rule": RULE})["outcome"] == "stored"
    for fact in FACTS:
        post(api, "/api/memory", {"project": PROJECT, "category": "fact", "content": fact, "source": "user"})

    measured: dict[str, int] = {}
    detail: dict[str, dict[str, list[int]]] = {}
    for mode in ("full", "rules", "off"):
        for attempt in range(3):  # a busy box can miss the search's deadline: that run injects the rules only
            by_event, sub_request = delegate_once(claude, repo, itachi_home,
                                                  tmp_path / f"cfg-{mode}-{attempt}", api, mode)
            assert len(by_event["SubagentStart"]) == 1 and len(by_event["UserPromptSubmit"]) == 2
            start = [t for t in by_event["SubagentStart"] if t]
            notified = [t for t in by_event["UserPromptSubmit"][1:] if t]  # the first: the user's own prompt
            if mode != "full" or any(fact in text for text in start + notified for fact in FACTS):
                break
        measured[mode] = sum(len(t) for t in start + notified)
        detail[mode] = {"SubagentStart": [len(t) for t in start], "notification": [len(t) for t in notified]}
        if mode == "off":
            assert start == [] and notified == []
        else:
            (context,) = start
            assert RULE in context and RULE in sub_request  # the subagent's first request has the rules
        if mode == "rules":
            assert not any(fact in context for fact in FACTS)
            assert notified == []  # the report is not searched; the session had the rules already
        if mode == "full":
            assert any(fact in text for text in start + notified for fact in FACTS)
    print("\nsubagent injection, characters:", json.dumps(measured), json.dumps(detail))
    assert measured["full"] > measured["rules"] > measured["off"] == 0
