"""Start a task from a GitHub delivery, once per delivery, and link the issue to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.tasks.domain.task_model import NewTask, Task
from chalicelib.triggers.domain.github_events import Delivery, Trigger, backlink_text, trigger_of
from chalicelib.triggers.services.ports import IssueCommenter, TriggersUnitOfWork

CONSUMER = "github-webhook"


@dataclass(frozen=True)
class TriggerResult:
    task_id: str | None = None  # None: the delivery asks for no task
    duplicate: bool = False  # the delivery was handled before: nothing new was done
    commented: bool = False


class GitHubTriggers:
    def __init__(self, uow: Callable[[], TriggersUnitOfWork], create_task: Callable[[NewTask], Task],
                 commenter: IssueCommenter | None, *, label: str, mention: str,
                 console_url: str = "") -> None:
        self._uow = uow
        self._create_task = create_task
        self._commenter = commenter
        self._label, self._mention = label, mention
        self._console_url = console_url.rstrip("/")

    def handle(self, delivery_id: str, delivery: Delivery) -> TriggerResult:
        """Create the task `delivery` asks for and comment its link on the issue.

        Idempotent on the delivery id: the task is keyed by it (a replay finds the same task), and
        the delivery is recorded after the task exists, so a crash in between is repaired by
        GitHub's redelivery; only the delivery that records it comments."""
        trigger = trigger_of(delivery, self._label, self._mention)
        if trigger is None:
            return TriggerResult()
        task = self._create_task(NewTask(trigger.project, trigger.prompt,
                                         idempotency_key=f"github:{delivery_id}"))
        with self._uow() as uow:
            fresh = uow.claims.claim(CONSUMER, delivery_id)
            uow.commit()
        get_logger().info("github delivery", extra={"delivery": delivery_id, "task_id": task.id,
                                                    "duplicate": not fresh})
        if not fresh:
            return TriggerResult(task.id, duplicate=True)
        return TriggerResult(task.id, commented=self._link(trigger, task))

    def _link(self, trigger: Trigger, task: Task) -> bool:
        if self._commenter is None:
            return False
        console = f"{self._console_url}/console/tasks/{task.id}" if self._console_url else None
        try:
            self._commenter.comment_on_issue(trigger.issue.repository, trigger.issue.number,
                                             backlink_text(task.id, None, console))
        except Exception as exc:  # the task stands; the issue just lacks its link
            log_failure("github back-link comment failed", exc, task_id=task.id)
            return False
        return True
