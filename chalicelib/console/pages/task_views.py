"""The task pages' HTML: the list, one task, and its live output polled with a cursor.

The output block polls `…/output?after=SEQ` every second while the task is not finished; each
answer appends the new events to `#output` (an out-of-band swap) and replaces the poller with one
carrying the new cursor, or with the result once the task has finished.
"""

from __future__ import annotations

from chalicelib.agents.domain.records import AgentRun
from chalicelib.console.domain.html import Markup, el, fragment
from chalicelib.console.pages.layout import post_button, short, table, when
from chalicelib.tasks.domain.task_model import Task, TaskEvent
from chalicelib.tasks.domain.task_states import TaskStatus


def task_rows(base: str, tasks: list[Task]) -> Markup:
    return table(
        ("task", "project", "status", "machine", "engine", "created", "finished"),
        [
            [
                el(
                    "a",
                    {"href": f"{base}/console/tasks/{t.id}", "class": "task-link"},
                    short(t.description, 120),
                ),
                t.project,
                el("span", {"class": f"status {t.status.value}"}, t.status.value),
                t.machine_id or t.target_machine or "—",
                t.current_engine or t.engine or "—",
                when(t.created_at),
                when(t.finished_at),
            ]
            for t in tasks
        ],
        id_="task-table",
    )


def run_rows(base: str, csrf: str, runs: list[AgentRun]) -> Markup:
    """Subagent runs: each runs as a task, whose page follows its output."""
    return table(
        ("run", "profile", "project", "status", "task", "cost", "created", ""),
        [
            [
                short(r.prompt, 120),
                r.profile,
                r.project,
                el("span", {"class": f"status {r.status}"}, r.status),
                el("a", {"href": f"{base}/console/tasks/{r.task_id}"}, r.task_id[:8]) if r.task_id else "—",
                f"${r.cost_usd:.4f}" if r.cost_usd is not None else "—",
                when(r.created_at),
                post_button(f"{base}/console/agents/{r.id}/cancel", csrf, "Cancel")
                if r.status == "active"
                else "",
            ]
            for r in runs
        ],
        id_="run-table",
    )


def event_lines(events: list[TaskEvent]) -> Markup:
    return fragment(
        *[
            el(
                "div",
                {"class": f"event {e.kind}", "data-seq": e.seq},
                el("span", {"class": "kind"}, e.kind),
                " ",
                e.text or short(e.data, 400),
            )
            for e in events
        ]
    )


def result_block(task: Task) -> Markup:
    return el(
        "section",
        {"id": "result", "class": f"result {task.status.value}"},
        el("h2", None, f"Result: {task.status.value}"),
        el("pre", {"class": "content"}, task.result_summary or task.error or "—"),
        el(
            "p",
            None,
            "files changed: ",
            ", ".join(task.files_changed) or "none",
            f" · exit code {task.exit_code}" if task.exit_code is not None else "",
            f" · cost ${task.cost_usd:.4f}" if task.cost_usd is not None else "",
        ),
    )


def poller(base: str, task: Task, after: int, more: bool = False) -> Markup:
    if task.status.terminal and not more:
        return el("div", {"id": "poller", "data-done": "true"}, result_block(task))
    return el(
        "div",
        {
            "id": "poller",
            "hx-get": f"{base}/console/tasks/{task.id}/output?after={after}",
            "hx-trigger": "every 1s",
            "hx-swap": "outerHTML",
        },
        el("p", {"class": "note"}, f"following live output (after event {after})…"),
    )


def output_update(
    base: str, csrf: str, task: Task, events: list[TaskEvent], after: int, more: bool
) -> Markup:
    """One poll's answer: the new poller, the new events appended, the summary brought up to date."""
    appended = el("div", {"hx-swap-oob": "beforeend:#output"}, event_lines(events)) if events else fragment()
    return fragment(poller(base, task, after, more), appended, summary(base, csrf, task, oob=True))


def summary(base: str, csrf: str, task: Task, *, oob: bool = False) -> Markup:
    """Status, actions and facts: rendered with the page and again with every poll."""
    action = f"{base}/console/tasks/{task.id}"
    buttons = []
    if not task.status.terminal:
        buttons.append(post_button(f"{action}/cancel", csrf, "Cancel", confirm="Cancel this task?"))
    if task.status in (TaskStatus.FAILED, TaskStatus.CANCELLED, TaskStatus.TIMED_OUT, TaskStatus.COMPLETED):
        buttons.append(post_button(f"{action}/retry", csrf, "Retry as a new task"))
    facts = [
        ("project", task.project),
        ("repo", task.repo or "—"),
        ("machine", task.machine_id or "—"),
        ("engine", task.current_engine or task.engine or "—"),
        ("attempts", f"{task.attempts}/{task.max_attempts}"),
        ("created", when(task.created_at)),
        ("started", when(task.started_at)),
        ("finished", when(task.finished_at)),
        ("branch", task.branch or "—"),
    ]
    return el(
        "section",
        {"id": "task-summary", "hx-swap-oob": "true" if oob else None},
        el(
            "p",
            None,
            "status ",
            el("span", {"id": "task-status", "class": f"status {task.status.value}"}, task.status.value),
        ),
        el("div", {"class": "actions"}, *buttons),
        el("dl", {"class": "facts"}, *[fragment(el("dt", None, k), el("dd", None, v)) for k, v in facts]),
    )


def task_detail(base: str, csrf: str, task: Task, events: list[TaskEvent], after: int) -> Markup:
    return fragment(
        el("pre", {"class": "content", "id": "task-description"}, task.description),
        summary(base, csrf, task),
        el("h2", None, "Output"),
        el("div", {"id": "output", "class": "output"}, event_lines(events)),
        poller(base, task, after),
    )
