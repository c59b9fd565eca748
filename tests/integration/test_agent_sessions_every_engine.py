"""Interactive sessions on the real agent with fake Codex, Gemini and Claude, and rate-limit switches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container
from tests.conftest import RunningApi
from tests.support.agent_harness import AgentHarness, harness
from tests.support.orchestration import client_for, wait_for


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


def _events(h: AgentHarness, sid: str) -> list[dict[str, Any]]:
    return h.client.get(f"/api/sessions/{sid}/events", limit=1000)["events"]  # type: ignore[no-any-return]


def _texts(h: AgentHarness, sid: str) -> str:
    """Everything the engines said (Gemini streams deltas, which are joined)."""
    return "\n".join(e["text"] for e in _events(h, sid) if e["kind"] == "text")


def _close(h: AgentHarness, sid: str) -> dict[str, Any]:
    h.client.post(f"/api/sessions/{sid}/close")
    return wait_for(lambda: (s := h.client.get(f"/api/sessions/{sid}"))["status"] in {"closed", "failed"}
                    and s, what="session ended")


def _starts(h: AgentHarness, engine: str) -> list[dict[str, Any]]:
    return [e for e in h.engine_events() if e["event"] == "start" and e["engine"] == engine]


@pytest.mark.parametrize("engine", ["codex", "gemini"])
def test_a_session_on_a_per_turn_engine_resumes_its_own_session_on_every_later_turn(
        h: AgentHarness, engine: str) -> None:
    h.start_agent("m1")
    sid = h.client.post("/api/sessions", {"prompt": "first question", "project": "p", "machine": "m1",
                                          "engine": engine})["id"]
    wait_for(lambda: "Working on: first question" in _texts(h, sid), what="the first answer")
    h.client.post(f"/api/sessions/{sid}/input", {"text": "second question"})
    wait_for(lambda: "Working on: second question" in _texts(h, sid), what="the second answer")

    ended = _close(h, sid)

    starts = _starts(h, engine)
    assert [s["prompt"] for s in starts] == ["first question", "second question"]
    first_id = "fake-thread" if engine == "codex" else "fake-session"
    assert [s["resume"] for s in starts] == [None, first_id]
    assert f"Resumed {first_id}" in _texts(h, sid)
    assert (ended["status"], ended["exit_code"]) == ("closed", 0)
    kinds = [e["kind"] for e in _events(h, sid)]
    assert kinds.count("result") == 2 and "rate_limit" not in kinds


def test_a_rate_limit_in_a_claude_session_moves_it_to_the_next_engine_with_a_handoff(
        h: AgentHarness) -> None:
    h.start_agent("m1", ITACHI_ENGINE_PRIORITY="claude,codex,gemini")
    sid = h.client.post("/api/sessions", {"prompt": "hello", "project": "p", "machine": "m1"})["id"]
    wait_for(lambda: "echo: hello" in _texts(h, sid), what="claude's first answer")

    h.client.post(f"/api/sessions/{sid}/input", {"text": "refactor the parser [fake:rate_limit=claude]"})
    wait_for(lambda: "Working on: refactor the parser" in _texts(h, sid),
             what="codex taking over the limited turn")
    h.client.post(f"/api/sessions/{sid}/input", {"text": "and now the tests"})
    wait_for(lambda: "Working on: and now the tests" in _texts(h, sid), what="codex answering the next turn")
    ended = _close(h, sid)

    (switch,) = [e for e in _events(h, sid) if e["kind"] == "engine_switch"]
    assert switch["data"] == {"from": "claude", "to": "codex", "switches": 1}
    first, second = _starts(h, "codex")
    handoff = "refactor the parser [fake:rate_limit=claude]\n\n## Handoff from claude\n"
    assert first["prompt"].startswith(handoff)
    assert "- last message: echo: hello" in first["prompt"]
    assert first["fallback"] == "1" and first["resume"] is None
    assert (second["prompt"], second["resume"]) == ("and now the tests", "fake-thread")
    assert [e["engine"] for e in h.engine_events() if e["event"] == "start"] == ["claude", "codex", "codex"]
    assert (ended["status"], ended["exit_code"]) == ("closed", 0)


def test_a_session_switches_at_most_as_often_as_the_server_allows(h: AgentHarness) -> None:
    h.start_agent("m1", ITACHI_ENGINE_PRIORITY="claude,codex,gemini")
    limited = "go [fake:rate_limit=claude,codex,gemini]"
    sid = h.client.post("/api/sessions", {"prompt": limited, "project": "p", "machine": "m1"})["id"]

    wait_for(lambda: any("no switch" in e["text"] for e in _events(h, sid) if e["kind"] == "notice"),
             what="the guard's notice")
    ended = _close(h, sid)

    switches = [e["data"] for e in _events(h, sid) if e["kind"] == "engine_switch"]
    assert [(s["from"], s["to"]) for s in switches] == [("claude", "codex"), ("codex", "gemini")]
    assert [e["engine"] for e in h.engine_events() if e["event"] == "start"] == ["claude", "codex", "gemini"]
    assert ended["status"] in {"closed", "failed"}
