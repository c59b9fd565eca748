"""A task engine's output, taken one way wherever the engine runs (locally headless, locally with
its turns on stdin, under an approval protocol, or on an SSH target): each line parsed by its
engine, each event into the run's summary and, when the topic shows it, the progress batch, and the
line past the cost guard (which stops the engine over its budget)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from agent.tasks.event_batcher import to_wire
from chalicelib.contracts.engine_events import EngineEvent

if TYPE_CHECKING:
    from agent.engines.definitions import Engine
    from agent.engines.engine_run import RunSummary
    from agent.tasks.task_runner import TaskRunner


def take_event(runner: TaskRunner, event: EngineEvent, summary: RunSummary) -> None:
    summary.add(event)
    wire = to_wire(event)
    if wire is not None:
        runner.batcher.add(wire)


def take_line(runner: TaskRunner, engine: Engine, line: str, summary: RunSummary) -> list[EngineEvent]:
    """The line's events, taken; the cost guard sees the line and them."""
    events = engine.parse(line)
    for event in events:
        take_event(runner, event, summary)
    runner.cost_guard.see(line, events)
    return events


def take_all(runner: TaskRunner, engine: Engine, lines: Iterator[str], summary: RunSummary) -> None:
    for line in lines:
        take_line(runner, engine, line, summary)
