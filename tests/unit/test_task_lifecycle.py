"""A task's life through the services on the in-memory unit of work: create, claim, lease,
events, engine switch, result, release, outcome and cancel."""

from __future__ import annotations

import pytest

from chalicelib.contracts.machine_messages import CANCEL
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.tasks.domain.task_model import NewEvent, NewTask, TaskOutcome, TaskResult
from chalicelib.tasks.domain.task_states import IllegalTransition, TaskStatus
from chalicelib.tasks.services.task_policy import TaskPolicy
from tests.support.task_world import TaskWorld

pytestmark = pytest.mark.unit


@pytest.fixture
def world() -> TaskWorld:
    w = TaskWorld(policy=TaskPolicy(lease_s=60, max_switches=1))
    w.heartbeat("m1")
    return w


def test_a_created_task_is_queued_with_its_created_event_and_offered_to_the_dispatcher(
        world: TaskWorld) -> None:
    task = world.create("add a health check", idempotency_key="k-1")

    assert world.task(task.id).status == TaskStatus.QUEUED
    assert world.event_kinds(task.id) == ["created"]
    assert world.queues.dispatch == [task.id]
    assert world.publisher.kinds(task.id) == ["created"]


def test_creating_again_with_the_same_idempotency_key_returns_the_first_task_without_a_second_event(
        world: TaskWorld) -> None:
    first = world.create("add a health check", idempotency_key="k-1")
    again = world.create("add a health check", idempotency_key="k-1")

    assert again.id == first.id
    assert world.event_kinds(first.id) == ["created"]
    assert len(world.store.tables.tasks) == 1


def test_an_unknown_engine_is_refused_before_anything_is_stored(world: TaskWorld) -> None:
    with pytest.raises(InvalidInput):
        world.create(engine="notepad")

    assert world.store.tables.tasks == {}
    assert world.queues.dispatch == []


def test_a_task_is_found_by_a_unique_prefix_and_an_ambiguous_or_short_one_is_not_found(
        world: TaskWorld) -> None:
    task = world.create()

    assert world.tasks.get(task.id[:8]).id == task.id
    with pytest.raises(NotFound):
        world.tasks.get(task.id[:4])
    with pytest.raises(NotFound):
        world.tasks.get("0123456789")


def test_a_claim_starts_the_first_attempt_with_the_enriched_prompt_and_a_second_claim_is_refused(
        world: TaskWorld) -> None:
    task = world.create("fix the login form")
    world.dispatcher.dispatch(task.id)
    seq = world.task(task.id).dispatch_seq

    claim = world.runs.claim(task.id, "m1", seq, "i-m1")

    assert (claim.task.status, claim.task.attempts) == (TaskStatus.RUNNING, 1)
    assert claim.prompt == "fix the login form\n[enriched for web]"
    assert claim.lease_s == 60
    with pytest.raises(Conflict):
        world.runs.claim(task.id, "m1", seq, "i-m1")
    assert world.event_kinds(task.id).count("started") == 1


def test_a_renewed_lease_moves_forward_and_tells_the_agent_to_stop_once_a_cancel_is_requested(
        world: TaskWorld) -> None:
    task = world.running()
    before = world.task(task.id).lease_expires_at
    world.clock.advance(10)

    state = world.runs.renew(task.id, "m1", 1)
    assert state.keep_running and world.task(task.id).lease_expires_at > before  # type: ignore[operator]

    world.tasks.cancel(task.id)
    state = world.runs.renew(task.id, "m1", 1)
    assert (state.keep_running, state.cancel_requested, state.status) == (False, True, TaskStatus.RUNNING)


def test_a_running_task_asked_to_cancel_gets_the_request_on_its_machine_queue(world: TaskWorld) -> None:
    task = world.running()

    updated = world.tasks.cancel(task.id)

    assert updated.cancel_requested and updated.status == TaskStatus.RUNNING
    assert [m["kind"] for m in world.queues.sent_to("m1")][-1] == CANCEL
    assert world.event_kinds(task.id)[-1] == "cancel_requested"


def test_a_queued_task_is_cancelled_at_once_and_a_finished_one_cannot_be(world: TaskWorld) -> None:
    queued = world.create()
    assert world.tasks.cancel(queued.id).status == TaskStatus.CANCELLED
    assert world.task(queued.id).finished_at == world.clock.now
    assert ("task", queued.id, "cancelled") in world.publisher.finished_refs

    with pytest.raises(IllegalTransition):
        world.tasks.cancel(queued.id)


def test_engine_output_is_redacted_before_it_is_stored_and_announced(world: TaskWorld) -> None:
    task = world.running()
    secret = "sk-" + "a" * 40

    world.runs.record_events(task.id, "m1", 1, [NewEvent("text", f"using key {secret}")])

    stored = world.events(task.id)[-1]
    assert secret not in stored.text
    assert all(secret not in str(e) for _, _, e in world.publisher.published_events)


def test_engine_switches_are_counted_and_refused_past_the_limit_without_changing_the_task(
        world: TaskWorld) -> None:
    task = world.running()

    switched = world.runs.switch_engine(task.id, "m1", 1, "claude", "codex", "rate limited")
    assert (switched.engine_switches, switched.current_engine) == (1, "codex")

    with pytest.raises(Conflict):
        world.runs.switch_engine(task.id, "m1", 1, "codex", "claude", "rate limited again")
    assert world.task(task.id).engine_switches == 1
    assert world.event_kinds(task.id).count("engine_switch") == 1


def test_a_result_finishes_the_attempt_announces_the_end_and_offers_waiting_tasks(world: TaskWorld) -> None:
    task = world.running()
    waiting = world.tasks.create(NewTask("other", "wait for a slot", target_machine="m1"))
    world.queues.dispatch.clear()

    result = TaskResult(status="completed", summary="done", files_changed=["a.py"], exit_code=0)
    done = world.runs.finish(task.id, "m1", 1, result)

    assert (done.status, done.files_changed, done.lease_expires_at) == (TaskStatus.COMPLETED, ("a.py",), None)
    assert ("task", task.id, "completed") in world.publisher.finished_refs
    assert world.queues.dispatch == [waiting.id]


def test_a_result_from_a_stale_attempt_or_machine_is_refused(world: TaskWorld) -> None:
    task = world.running()
    result = TaskResult(status="completed", summary="done")

    with pytest.raises(Conflict):
        world.runs.finish(task.id, "m1", 2, result)
    with pytest.raises(Conflict):
        world.runs.finish(task.id, "m2", 1, result)
    with pytest.raises(InvalidInput):
        world.runs.finish(task.id, "m1", 1, TaskResult(status="running"))  # type: ignore[arg-type]
    assert world.task(task.id).status == TaskStatus.RUNNING


def test_a_released_task_is_queued_again_and_put_back_on_the_dispatch_queue(world: TaskWorld) -> None:
    task = world.create()
    world.dispatcher.dispatch(task.id)
    world.queues.dispatch.clear()

    released = world.runs.release(task.id, "m1", world.task(task.id).dispatch_seq, "repo missing")

    assert (released.status, released.machine_id) == (TaskStatus.QUEUED, None)
    assert world.queues.dispatch == [task.id]
    with pytest.raises(Conflict):
        world.runs.release(task.id, "m1", released.dispatch_seq, "again")


def test_an_outcome_is_recorded_once_and_the_learning_loop_hears_of_it_once(world: TaskWorld) -> None:
    task = world.running()
    outcome = TaskOutcome(task.id, 1, "web", "success")

    assert world.runs.record_outcome(outcome) is True
    assert world.runs.record_outcome(outcome) is False
    assert world.outcomes.outcomes == [outcome]
    with pytest.raises(NotFound):
        world.runs.record_outcome(TaskOutcome("4f1b2c3d-0000-4000-8000-000000000000", 1, "web", "success"))


def test_a_refused_claim_commits_nothing_and_announces_nothing(world: TaskWorld) -> None:
    task = world.running()
    published = len(world.publisher.published_events)

    with pytest.raises(Conflict):
        world.runs.claim(task.id, "m1", 99, "i-m1")

    assert len(world.publisher.published_events) == published
    assert world.units[-1].committed is False
