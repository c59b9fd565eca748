"""Interactive sessions on the in-memory unit of work: machine choice, ordered turns, close, end."""

from __future__ import annotations

import pytest

from chalicelib.contracts.agent_api import SessionStartRequest
from chalicelib.contracts.machine_messages import SESSION_CLOSE, SESSION_INPUT, SESSION_START
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.domain.task_model import NewEvent
from tests.support.task_world import TaskWorld

pytestmark = pytest.mark.unit


@pytest.fixture
def world() -> TaskWorld:
    w = TaskWorld()
    w.heartbeat("m1")
    return w


def test_a_session_starts_on_an_online_machine_with_its_first_turn_stored(world: TaskWorld) -> None:
    session = world.sessions.start(SessionStartRequest("hello", "web"))

    assert (session.machine_id, session.status) == ("m1", SessionStatus.STARTING)
    assert world.queues.sent_to("m1") == [{"kind": SESSION_START, "session_id": session.id}]
    assert [e["text"] for e in world.sessions.events(session.id)] == ["hello"]


def test_a_session_needs_an_online_machine_and_a_known_engine(world: TaskWorld) -> None:
    with pytest.raises(Unavailable):
        world.sessions.start(SessionStartRequest("hello", "web", machine="m9"))
    with pytest.raises(InvalidInput):
        world.sessions.start(SessionStartRequest("hello", "web", engine="cursor"))
    assert world.store.tables.sessions == {}


@pytest.mark.parametrize("engine", ["codex", "gemini"])
def test_codex_and_gemini_sessions_start_like_claude_ones_on_a_machine_that_runs_them(
        world: TaskWorld, engine: str) -> None:
    world.machines.heartbeat(Heartbeat("m2", "online", "i-m2", 0, 2, ("gemini", "codex"), (), ()))

    session = world.sessions.start(SessionStartRequest("hello", "web", machine="m2", engine=engine))

    assert (session.engine, session.status) == (engine, SessionStatus.STARTING)
    assert world.queues.sent_to("m2") == [{"kind": SESSION_START, "session_id": session.id}]


def test_engine_switches_are_counted_shown_and_refused_past_the_limit(world: TaskWorld) -> None:
    session = world.sessions.start(SessionStartRequest("one", "web"))
    with pytest.raises(Conflict):  # not running yet
        world.sessions.switch_engine(session.id, "m1", "claude", "codex", "429")
    world.sessions.claim(session.id, "m1")

    first = world.sessions.switch_engine(session.id, "m1", "claude", "codex", "429 Too Many Requests")
    second = world.sessions.switch_engine(session.id, "m1", "codex", "gemini", "quota")
    with pytest.raises(Conflict, match="switch limit reached"):
        world.sessions.switch_engine(session.id, "m1", "gemini", "claude", "quota")
    with pytest.raises(Conflict):
        world.sessions.switch_engine(session.id, "m2", "claude", "codex", "not its machine")

    assert (first, second) == (1, 2)
    switches = [e for e in world.sessions.events(session.id) if e["kind"] == "engine_switch"]
    assert [e["data"] for e in switches] == [{"from": "claude", "to": "codex", "switches": 1},
                                             {"from": "codex", "to": "gemini", "switches": 2}]
    shown = {"kind": "engine_switch", "text": "claude -> codex: 429 Too Many Requests"}
    assert ("session", session.id, shown) in world.publisher.published_events


def test_turns_are_numbered_in_order_and_the_claim_returns_those_stored_so_far(world: TaskWorld) -> None:
    session = world.sessions.start(SessionStartRequest("one", "web"))
    assert world.sessions.send_input(session.id, "two") == 2

    claimed, inputs = world.sessions.claim(session.id, "m1")

    assert claimed.status == SessionStatus.ACTIVE
    assert inputs == [{"seq": 1, "text": "one"}, {"seq": 2, "text": "two"}]
    assert world.queues.sent_to("m1")[-1] == {"kind": SESSION_INPUT, "session_id": session.id, "seq": 2,
                                              "text": "two"}


def test_a_closing_session_takes_no_more_turns_and_its_end_is_announced(world: TaskWorld) -> None:
    session = world.sessions.start(SessionStartRequest("one", "web"))
    world.sessions.claim(session.id, "m1")
    world.sessions.record_events(session.id, "m1", [NewEvent("text", "hi there")])

    assert world.sessions.close(session.id).status == SessionStatus.CLOSING
    assert world.queues.sent_to("m1")[-1] == {"kind": SESSION_CLOSE, "session_id": session.id}
    with pytest.raises(Conflict):
        world.sessions.send_input(session.id, "too late")

    ended = world.sessions.ended(session.id, "m1", 0, None)
    assert (ended.status, ended.exit_code) == (SessionStatus.CLOSED, 0)
    assert ("session", session.id, "closed") in world.publisher.finished_refs
    assert ("session", session.id, {"kind": "text", "text": "hi there"}) in world.publisher.published_events


def test_only_the_sessions_machine_may_report_for_it_and_unknown_ids_are_not_found(world: TaskWorld) -> None:
    session = world.sessions.start(SessionStartRequest("one", "web"))

    with pytest.raises(Conflict):
        world.sessions.claim(session.id, "m2")
    with pytest.raises(NotFound):
        world.sessions.get("not-a-uuid")
