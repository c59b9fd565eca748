"""What task orchestration sends out, recorded in memory: SQS messages and published events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib.tasks.domain.task_model import Task, TaskOutcome


class RecordingTaskQueues:
    """The TaskQueues port, in memory; `refuse` makes sends to those machines fail like SQS would."""

    def __init__(self) -> None:
        self.dispatch: list[str] = []
        self.machine_messages: list[tuple[str, dict[str, Any]]] = []
        self.machine_queues: list[str] = []
        self.refuse: set[str] = set()

    def send_dispatch(self, task_id: str) -> None:
        self.dispatch.append(task_id)

    def ensure_machine_queue(self, machine_id: str) -> str:
        self.machine_queues.append(machine_id)
        return f"memory://queues/machine-{machine_id}"

    def send_to_machine(self, machine_id: str, body: dict[str, Any]) -> None:
        if machine_id in self.refuse:
            raise ConnectionError(f"the queue of {machine_id} refused the message")
        self.machine_messages.append((machine_id, body))

    def sent_to(self, machine_id: str) -> list[dict[str, Any]]:
        return [body for machine, body in self.machine_messages if machine == machine_id]


class RecordingPublisher:
    """The TaskEventPublisher port, in memory."""

    def __init__(self) -> None:
        self.published_events: list[tuple[str, str, dict[str, Any]]] = []
        self.finished_refs: list[tuple[str, str, str]] = []

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        self.published_events.extend((kind, ref_id, dict(e)) for e in events)

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        self.finished_refs.append((kind, ref_id, status))

    def kinds(self, ref_id: str) -> list[str]:
        return [e["kind"] for _, ref, e in self.published_events if ref == ref_id]


class EchoEnricher:
    """The PromptEnricher port: the prompt, marked so a test sees it went through."""

    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        return f"{prompt}\n[enriched for {project}]"


class RecordingOutcomeListener:
    def __init__(self) -> None:
        self.outcomes: list[TaskOutcome] = []

    def recorded(self, outcome: TaskOutcome, task: Task | None = None) -> None:
        self.outcomes.append(outcome)
