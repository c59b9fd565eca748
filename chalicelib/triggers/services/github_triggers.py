"""Start a task from a GitHub delivery, once per delivery, and link the issue to it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.tasks.domain.task_model import NewTask, Task
from chalicelib.triggers.domain.github_events import Delivery, Trigger, backlink_text, trigger_of
from chalicelib.triggers.services.ports import IssueCommenter, TaskTopics, TriggersUnitOfWork

CONSUMER = "github-webhook"


@dataclass(frozen=True)
class TriggerResult:
    task_id: str | None = None  # None: the delivery asks for no task
    duplicate: bool = False  # the delivery was handled before: nothing new was done
    commented: bool = False


class GitHubTriggers:
    def __init__(self, uow: Callable[[], TriggersUnitOfWork], create_task: Callable[[NewTask], Task],
                 commenter: IssueCommenter | None, topics: TaskTopics | None, *, label: str, mention: str,
                 console_url: str = "") -> None:
        self._uow = uow
        self._create_task = create_task
        self._commenter = commenter
        self._topics = topics
        self._label, self._mention = label, mention
        self._console_url = console_url.rstrip("/")

    def handle(self, delivery_id: str, delivery: Delivery) -> TriggerResult:
        """Create the task `delivery` asks for, in a Telegram topic of its own when there is a
        supergroup, and comment its link on the issue.

        Idempotent on the delivery id: the delivery's record is taken first and commits only once
        the task exists (a concurrent copy waits for it, then finds it taken), and the task is
        keyed by the id too, so a copy always answers with the same task and does nothing else."""
        trigger = trigger_of(delivery, self._label, self._mention)
        if trigger is None:
            return TriggerResult()
        key = f"github:{delivery_id}"
        with self._uow() as uow:
            if not uow.claims.claim(CONSUMER, delivery_id):
                return TriggerResult(self._create_task(NewTask(trigger.project, trigger.prompt,
                                                               idempotency_key=key)).id, duplicate=True)
            task, topic_url = self._new_task(trigger, key)
            uow.commit()
        get_logger().info("github delivery", extra={"delivery": delivery_id, "task_id": task.id})
        return TriggerResult(task.id, commented=self._link(trigger, task, topic_url))

    def _new_task(self, trigger: Trigger, key: str) -> tuple[Task, str | None]:
        """The task, in a topic of its own when one can be opened; and the topic's link."""
        title = trigger.issue.title or trigger.prompt
        place = self._topics.open(trigger.project, title) if self._topics else None
        task = self._create_task(NewTask(trigger.project, trigger.prompt, idempotency_key=key,
                                         telegram_chat_id=place[0] if place else None,
                                         telegram_topic_id=place[1] if place else None))
        if self._topics is None or place is None:
            return task, None
        return task, self._topics.attach(task.id, trigger.project, title, place)

    def _link(self, trigger: Trigger, task: Task, topic_url: str | None) -> bool:
        if self._commenter is None:
            return False
        console = f"{self._console_url}/console/tasks/{task.id}" if self._console_url else None
        try:
            self._commenter.comment_on_issue(trigger.issue.repository, trigger.issue.number,
                                             backlink_text(task.id, topic_url, console))
        except Exception as exc:  # the task stands; the issue just lacks its link
            log_failure("github back-link comment failed", exc, task_id=task.id)
            return False
        return True
