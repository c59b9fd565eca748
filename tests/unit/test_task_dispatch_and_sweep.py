"""Dispatch choice, the sweep's retries and failures, and a restarted agent's orphans, on the
in-memory unit of work with a clock the tests move."""

from __future__ import annotations

import pytest

from chalicelib.contracts.agent_api import SessionStartRequest
from chalicelib.contracts.machine_messages import TASK
from chalicelib.kernel.errors import NotFound
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.tasks.services.dispatch import DispatchOutcome
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.support.task_world import TaskWorld

pytestmark = pytest.mark.unit


@pytest.fixture
def world() -> TaskWorld:
    return TaskWorld(policy=TaskPolicy(lease_s=60, offline_after_s=90, claim_timeout_s=300,
                                       overdue_grace_s=120))


def test_a_task_waits_while_no_machine_is_online_and_goes_to_the_least_loaded_one_after(
        world: TaskWorld) -> None:
    first = world.create()
    assert world.dispatcher.dispatch(first.id).outcome == DispatchOutcome.WAITING
    assert world.task(first.id).status == TaskStatus.QUEUED

    world.heartbeat("m1", max_concurrent=2)
    world.heartbeat("m2", max_concurrent=2)
    assert world.dispatcher.dispatch(first.id).machine_id == "m1"
    second = world.create()
    result = world.dispatcher.dispatch(second.id)

    assert (result.outcome, result.machine_id) == (DispatchOutcome.DISPATCHED, "m2")
    assert world.queues.sent_to("m2") == [{"kind": TASK, "task_id": second.id, "dispatch_seq": 1}]
    assert world.units[-1].dispatch_locks == 1


def test_a_full_machine_takes_no_more_tasks_and_a_duplicate_dispatch_message_is_skipped(
        world: TaskWorld) -> None:
    world.heartbeat("m1", max_concurrent=1)
    first, second = world.create(), world.create()

    assert world.dispatcher.dispatch(first.id).outcome == DispatchOutcome.DISPATCHED
    assert world.dispatcher.dispatch(first.id).outcome == DispatchOutcome.SKIPPED
    assert world.dispatcher.dispatch(second.id).outcome == DispatchOutcome.WAITING
    assert len(world.queues.sent_to("m1")) == 1


def test_a_task_goes_only_to_a_machine_that_has_its_project(world: TaskWorld) -> None:
    world.heartbeat("m1", projects=("api",))
    world.heartbeat("m2", projects=("web",))

    assert world.dispatcher.dispatch(world.create(project="web").id).machine_id == "m2"
    assert world.dispatcher.dispatch(world.create(project="api").id).machine_id == "m1"


def test_a_refused_machine_queue_puts_the_task_back_in_the_queue_and_fails_the_message(
        world: TaskWorld) -> None:
    world.heartbeat("m1")
    task = world.create()
    world.queues.refuse.add("m1")

    with pytest.raises(ConnectionError):
        world.dispatcher.dispatch(task.id)

    assert (world.task(task.id).status, world.task(task.id).machine_id) == (TaskStatus.QUEUED, None)
    assert "dispatched" not in world.publisher.kinds(task.id)
    world.queues.refuse.clear()
    assert world.dispatcher.dispatch(task.id).outcome == DispatchOutcome.DISPATCHED


def test_dispatching_an_unknown_task_is_not_found(world: TaskWorld) -> None:
    with pytest.raises(NotFound):
        world.dispatcher.dispatch("4f1b2c3d-0000-4000-8000-000000000000")


def test_a_lost_lease_is_retried_while_attempts_remain_then_the_task_fails(world: TaskWorld) -> None:
    world.heartbeat("m1")
    task = world.running(max_attempts=2)
    world.clock.advance(61)
    world.queues.dispatch.clear()

    report = world.sweeper.sweep()
    assert (report.recovered, report.offered) == (1, 1)
    assert world.task(task.id).status == TaskStatus.QUEUED
    assert world.queues.dispatch == [task.id]

    world.dispatcher.dispatch(task.id)
    world.runs.claim(task.id, "m1", world.task(task.id).dispatch_seq, "i-m1")
    world.clock.advance(61)
    world.sweeper.sweep()

    failed = world.task(task.id)
    assert (failed.status, failed.attempts) == (TaskStatus.FAILED, 2)
    assert failed.error is not None and "lease expired" in failed.error
    assert ("task", task.id, "failed") in world.publisher.finished_refs


def test_a_lost_lease_on_a_task_asked_to_cancel_ends_it_cancelled(world: TaskWorld) -> None:
    world.heartbeat("m1")
    task = world.running()
    world.tasks.cancel(task.id)
    world.clock.advance(61)

    world.sweeper.sweep()

    assert world.task(task.id).status == TaskStatus.CANCELLED


def test_a_task_running_past_its_budget_and_grace_is_timed_out(world: TaskWorld) -> None:
    world.heartbeat("m1")
    task = world.running(time_budget_s=600)
    for _ in range(13):  # the agent keeps renewing its lease, but never stops the engine
        world.clock.advance(59)
        world.heartbeat("m1", active_tasks=1)
        world.runs.renew(task.id, "m1", 1)

    report = world.sweeper.sweep()

    assert report.timed_out == 1
    assert world.task(task.id).status == TaskStatus.TIMED_OUT
    assert world.event_kinds(task.id)[-1] == "timed_out"


def test_a_dispatched_task_goes_back_to_the_queue_when_its_machine_goes_offline_or_never_claims_it(
        world: TaskWorld) -> None:
    world.heartbeat("m1")
    world.heartbeat("m2")
    offline, unclaimed = world.create(target_machine="m1"), world.create(target_machine="m2")
    world.dispatcher.dispatch(offline.id)
    world.dispatcher.dispatch(unclaimed.id)

    world.clock.advance(100)  # m1 falls silent; m2 keeps beating but never claims
    world.heartbeat("m2", active_tasks=2, max_concurrent=2)
    assert world.sweeper.sweep().requeued_dispatched == 1
    assert world.task(offline.id).status == TaskStatus.QUEUED
    assert world.task(unclaimed.id).status == TaskStatus.DISPATCHED

    world.clock.advance(250)
    world.heartbeat("m2", active_tasks=2, max_concurrent=2)
    world.sweeper.sweep()
    assert world.task(unclaimed.id).status == TaskStatus.QUEUED


def test_a_restarted_agent_gets_its_orphaned_tasks_retried_and_its_sessions_failed(world: TaskWorld) -> None:
    world.heartbeat("m1", instance="first")
    task = world.create()
    world.dispatcher.dispatch(task.id)
    world.runs.claim(task.id, "m1", 1, "first")
    session = world.sessions.start(SessionStartRequest("hello", "web"))
    world.queues.dispatch.clear()

    world.heartbeat("m1", instance="second")

    assert world.task(task.id).status == TaskStatus.QUEUED
    assert world.sessions.get(session.id).status.value == "failed"
    assert world.queues.dispatch == [task.id]
    assert world.queues.machine_queues == ["m1", "m1"]


def test_sessions_on_a_machine_gone_offline_are_failed_by_the_sweep(world: TaskWorld) -> None:
    world.heartbeat("m1")
    session = world.sessions.start(SessionStartRequest("hello", "web"))
    world.clock.advance(91)

    assert world.sweeper.sweep().sessions_failed == 1
    assert world.sessions.get(session.id).error == "machine offline"
