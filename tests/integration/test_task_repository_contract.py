"""One contract for the tasks unit of work, run against the in-memory fake and real Postgres.

The unit tests of the task services trust the fake (tests/fakes/task_store.py); this suite is
what earns that trust: every behaviour the services rely on is asserted on both. Time-based
queries are probed with negative durations (already expired) and generous positive ones (not
yet), so neither side needs its clock moved.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from chalicelib.kernel.database import Database
from chalicelib.tasks.adapters.postgres_tasks_uow import tasks_units
from chalicelib.tasks.domain.agent_session_states import SessionStatus
from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, Task, TaskOutcome, TaskResult
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.tasks.services.ports import TasksUnitOfWork
from tests.fakes.task_store import InMemoryTasksUnitOfWork
from tests.fakes.task_tables import TaskStore

Units = Callable[[], TasksUnitOfWork]


class TickingClock:
    """Real time that moves a millisecond on every reading, as separate transactions would."""

    def __init__(self) -> None:
        self._now = datetime.now(UTC)

    def __call__(self) -> datetime:
        self._now += timedelta(milliseconds=1)
        return self._now


@pytest.fixture(params=["in-memory", "postgres"])
def units(request: pytest.FixtureRequest) -> Iterator[Units]:
    if request.param == "in-memory":
        store = TaskStore(TickingClock())
        yield lambda: InMemoryTasksUnitOfWork(store)
        return
    db = Database(request.getfixturevalue("database_url"), min_size=1, max_size=2)
    yield tasks_units(db)
    db.close()


def add(units: Units, description: str = "fix it", project: str = "web", **fields: Any) -> Task:
    with units() as uow:
        task, _ = uow.tasks.insert(str(uuid.uuid4()), NewTask(project, description, **fields))
        uow.commit()
    return task


def running(units: Units, machine: str = "m1", instance: str = "i-1", lease_s: float = 600) -> Task:
    task = add(units)
    with units() as uow:
        dispatched = uow.tasks.mark_dispatched(task.id, machine)
        assert dispatched is not None
        claimed = uow.tasks.claim(task.id, machine, dispatched.dispatch_seq, instance, lease_s)
        assert claimed is not None
        uow.commit()
    return claimed


def test_an_inserted_task_is_queued_and_an_idempotency_key_returns_the_first_one(units: Units) -> None:
    first = add(units, "a", idempotency_key="k-1", engine="codex")
    with units() as uow:
        again, fresh = uow.tasks.insert(str(uuid.uuid4()), NewTask("web", "a", idempotency_key="k-1"))
        uow.commit()

    assert (first.status, first.attempts, first.current_engine) == (TaskStatus.QUEUED, 0, "codex")
    assert (again.id, fresh) == (first.id, False)
    assert add(units).id != add(units).id  # no key, no conflict


def test_tasks_are_found_by_id_prefix_and_searched_newest_first(units: Units) -> None:
    older, newer = add(units, "older"), add(units, "newer")
    with units() as uow:
        assert uow.tasks.get(older.id) == older
        assert uow.tasks.ids_with_prefix(older.id[:13]) == [older.id]
        found = uow.tasks.search(status="queued", project="web", machine=None, limit=10)
        assert [t.id for t in found] == [newer.id, older.id]
        assert uow.tasks.search(status="running", project=None, machine=None, limit=10) == []
        assert uow.tasks.queued_ids(1, ()) == [older.id]


def test_an_update_applies_only_in_the_expected_status_and_conditions(units: Units) -> None:
    task = add(units)
    with units() as uow:
        assert uow.tasks.update(task.id, where_status=("running",), error="x") is None
        assert uow.tasks.update(task.id, where_status=("queued",), where={"dispatch_seq": 5},
                                error="x") is None
        done = uow.tasks.update(task.id, where_status=("queued",), where={"dispatch_seq": 0},
                                status="cancelled", error="stopped")
        uow.commit()
    assert done is not None and (done.status, done.error) == (TaskStatus.CANCELLED, "stopped")


def test_dispatch_and_claim_move_a_task_only_for_its_machine_and_dispatch(units: Units) -> None:
    task = add(units)
    with units() as uow:
        dispatched = uow.tasks.mark_dispatched(task.id, "m1")
        assert dispatched is not None and (dispatched.machine_id, dispatched.dispatch_seq) == ("m1", 1)
        assert uow.tasks.mark_dispatched(task.id, "m2") is None
        assert uow.tasks.claim(task.id, "m2", 1, "i-2", 60) is None
        assert uow.tasks.claim(task.id, "m1", 0, "i-1", 60) is None
        claimed = uow.tasks.claim(task.id, "m1", 1, "i-1", 60)
        uow.commit()
    assert claimed is not None and (claimed.status, claimed.attempts, claimed.agent_instance) == (
        TaskStatus.RUNNING, 1, "i-1")
    assert claimed.lease_expires_at is not None and claimed.started_at is not None


def test_a_lease_is_renewed_and_a_result_recorded_only_for_the_current_attempt(units: Units) -> None:
    task = running(units)
    result = TaskResult(status="completed", summary="done", files_changed=["a.py", "b.py"], exit_code=0,
                        cost_usd=0.25, branch="itachi/x")
    with units() as uow:
        assert uow.tasks.renew_lease(task.id, "m1", 2, 60) is None
        renewed = uow.tasks.renew_lease(task.id, "m1", 1, 6000)
        assert renewed is not None and renewed.lease_expires_at > task.lease_expires_at  # type: ignore[operator]
        assert uow.tasks.finish(task.id, "m1", 2, result) is None
        done = uow.tasks.finish(task.id, "m1", 1, result)
        uow.commit()
    assert done is not None
    assert (done.status, done.files_changed, done.cost_usd, done.branch, done.lease_expires_at) == (
        TaskStatus.COMPLETED, ("a.py", "b.py"), 0.25, "itachi/x", None)


def test_lost_leases_overdue_runs_orphans_and_stuck_dispatches_are_found(units: Units) -> None:
    lost, live = running(units, lease_s=-60), running(units, instance="i-2")
    stuck = add(units)
    with units() as uow:
        uow.tasks.mark_dispatched(stuck.id, "m2")
        uow.commit()
    with units() as uow:
        assert [t.id for t in uow.tasks.lost_leases()] == [lost.id]
        assert {t.id for t in uow.tasks.overdue(-10**6)} == {lost.id, live.id}
        assert uow.tasks.overdue(0) == []
        assert [t.id for t in uow.tasks.orphans_of("m1", "i-2")] == [lost.id]
        assert {t.id for t in uow.tasks.orphans_of("m1", None)} == {lost.id, live.id}
        assert [t.id for t in uow.tasks.stuck_dispatched(-60)] == [stuck.id]
        assert uow.tasks.stuck_dispatched(3600) == []
        assert [t.id for t in uow.tasks.dispatched_to("m2")] == [stuck.id]
        assert uow.tasks.dispatched_to("m1") == []


def test_queued_tasks_are_offered_per_machine_and_project_oldest_first(units: Units) -> None:
    gone = [add(units, target_machine="gone") for _ in range(3)]
    web_m1 = [add(units, target_machine="m1") for _ in range(3)]
    docs_m1 = add(units, target_machine="m1", project="docs")
    web_any = [add(units) for _ in range(3)]
    docs_any = add(units, project="docs")
    with units() as uow:
        assert uow.tasks.queued_ids(2, ["m1"]) == [t.id for t in (*web_m1[:2], docs_m1, *web_any[:2],
                                                                 docs_any)]
        assert uow.tasks.queued_ids(1, ["m1", "gone"]) == [gone[0].id, web_m1[0].id, docs_m1.id,
                                                           web_any[0].id, docs_any.id]
        assert uow.tasks.queued_ids(5, []) == [t.id for t in (*web_any, docs_any)]


def test_events_are_numbered_per_task_and_read_after_a_sequence_number(units: Units) -> None:
    task = add(units)
    with units() as uow:
        first = uow.events.append(task.id, 0, [NewEvent("a"), NewEvent("b", "text", {"n": 1})])
        second = uow.events.append(task.id, 1, [NewEvent("c")])
        uow.commit()
    assert [e.seq for e in first + second] == [1, 2, 3]
    with units() as uow:
        later = uow.events.since(task.id, after=1, limit=10)
    assert [(e.seq, e.kind, e.text, e.data, e.attempt) for e in later] == [
        (2, "b", "text", {"n": 1}, 0), (3, "c", "", {}, 1)]


def test_an_outcome_is_recorded_once_per_attempt(units: Units) -> None:
    task = add(units)
    with units() as uow:
        assert uow.outcomes.record(TaskOutcome(task.id, 1, "web", "success")) is True
        assert uow.outcomes.record(TaskOutcome(task.id, 1, "web", "failure")) is False
        assert uow.outcomes.record(TaskOutcome(task.id, 2, "web", "failure")) is True
        uow.commit()


def test_a_unit_left_without_commit_leaves_nothing_and_runs_no_after_commit_action(units: Units) -> None:
    ran: list[str] = []
    with units() as uow:
        uow.tasks.insert(str(uuid.uuid4()), NewTask("web", "never"))
        uow.after_commit(lambda: ran.append("rolled back"))
    with units() as uow:
        uow.tasks.insert(str(uuid.uuid4()), NewTask("web", "kept"))
        uow.after_commit(lambda: ran.append("committed"))
        uow.commit()
    with units() as uow:
        found = uow.tasks.search(status=None, project="web", machine=None, limit=10)
    assert [t.description for t in found] == ["kept"]
    assert ran == ["committed"]


def test_machines_remember_heartbeats_and_count_the_tasks_assigned_to_them(units: Units) -> None:
    beat = Heartbeat("m1", "online", "i-1", 0, 3, ("claude",), ("web",), ("git@x:web.git",), "host")
    with units() as uow:
        assert uow.machines.record_heartbeat(beat) == (None, None)
        uow.machines.set_queue_url("m1", "https://queue/m1")
        uow.commit()
    running(units)
    with units() as uow:
        assert uow.machines.record_heartbeat(Heartbeat("m1", "online", "i-2", 1, 3, (), (), ())) == (
            "i-1", "https://queue/m1")
        uow.machines.record_heartbeat(Heartbeat("m2", "draining", "i-9", 0, 1, (), (), ()))
        uow.commit()
    with units() as uow:
        (m1,) = uow.machines.records("m1")
        everyone = uow.machines.records()
    assert (m1.view.assigned_tasks, m1.view.max_concurrent, m1.agent_instance, m1.queue_url) == (
        1, 3, "i-2", "https://queue/m1")
    assert 0 <= m1.view.seconds_since_heartbeat < 60 and m1.view.online()
    assert [(r.view.id, r.view.online()) for r in everyone] == [("m1", True), ("m2", False)]


def test_sessions_keep_their_turns_in_order_and_their_first_exit_code(units: Units) -> None:
    session_id = str(uuid.uuid4())
    with units() as uow:
        uow.sessions.insert(session_id, machine_id="m1", project="web", repo=None, engine="claude",
                            telegram_chat_id=None, telegram_topic_id=None)
        seqs = [uow.sessions.next_input_seq(session_id) for _ in range(2)]
        last = uow.sessions.append_events(session_id, [NewEvent("user_input", "hi", {"seq": 1}),
                                                       NewEvent("x")])
        uow.sessions.set_status(session_id, SessionStatus.FAILED, exit_code=3, error="boom")
        closed = uow.sessions.set_status(session_id, SessionStatus.CLOSED)
        uow.commit()
    with units() as uow:
        inputs = uow.sessions.events(session_id, after=0, limit=10, kind="user_input")
        assert uow.sessions.open_on_machine("m1") == []
    assert (seqs, last) == ([1, 2], 2)
    assert (closed.status, closed.exit_code, closed.error) == (SessionStatus.CLOSED, 3, "boom")
    assert closed.closed_at is not None
    assert [(e["seq"], e["text"], e["data"]) for e in inputs] == [(1, "hi", {"seq": 1})]
