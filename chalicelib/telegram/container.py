"""The Telegram part of the composition root: `container.telegram`.

Built lazily like the rest of the container; python-telegram-bot is imported only when the
bot itself (runtime, sender) is first used, so the webhook route stays light.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from chalicelib.kernel.errors import DomainError
from chalicelib.learning.services.task_feedback import TaskFeedback
from chalicelib.telegram.adapters.reminder_repository import ReminderRepository
from chalicelib.telegram.adapters.session_request_repository import SessionRequestRepository
from chalicelib.telegram.adapters.sqs_stream_trigger import SqsStreamTrigger
from chalicelib.telegram.adapters.telegram_outbox_repository import TelegramOutboxRepository
from chalicelib.telegram.adapters.telegram_topic_repository import TelegramTopicRepository, Topic
from chalicelib.telegram.domain.topic_story import topic_title
from chalicelib.telegram.services.reminders import Reminders
from chalicelib.telegram.services.telegram_context import TelegramContext
from chalicelib.telegram.services.telegram_conversation import Conversation
from chalicelib.telegram.services.telegram_intake import TelegramIntake, UpdateRunner, first_refusal
from chalicelib.telegram.services.telegram_streams import TopicStreams

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.tasks.services.ports import TaskEventPublisher
    from chalicelib.telegram.bot.runtime import BotRuntime
    from chalicelib.telegram.services.telegram_ports import MessageSender


class TelegramContainer:
    """`flush_interval_s` and `sleep` pace the topic streams; tests pass 0 and a recorder."""

    def __init__(self, container: Container, *, flush_interval_s: float = 1.5,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._c = container
        self._flush_interval_s = flush_interval_s
        self._sleep = sleep

    @property
    def enabled(self) -> bool:
        return bool(self._c.settings.telegram_bot_token)

    @cached_property
    def runtime(self) -> BotRuntime:
        from chalicelib.telegram.bot.handler_table import build_application
        from chalicelib.telegram.bot.runtime import BotRuntime

        return BotRuntime(lambda: build_application(self._c))

    @cached_property
    def sender(self) -> MessageSender:
        from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway

        return TelegramGateway(self.runtime)

    @cached_property
    def topics(self) -> TelegramTopicRepository:
        return TelegramTopicRepository(self._c.db)

    @cached_property
    def streams(self) -> TopicStreams:
        return TopicStreams(TelegramOutboxRepository(self._c.db), self.topics, self.sender,
                            SqsStreamTrigger(self._c.queues), flush_interval_s=self._flush_interval_s,
                            sleep=self._sleep)

    @cached_property
    def publisher(self) -> TaskEventPublisher:
        """Task and session output into their topics; nothing without a bot token."""
        if not self.enabled:
            from chalicelib.tasks.services.ports import NullTaskEventPublisher

            return NullTaskEventPublisher()
        from chalicelib.telegram.services.telegram_publisher import TopicEventPublisher

        return TopicEventPublisher(self.topic_of, self.streams)

    def topic_of(self, kind: str, ref_id: str) -> Topic | None:
        """The topic registered for a task or session, else the one its own record names."""
        topic = self.topics.by_ref(kind, ref_id)
        if topic is not None:
            return topic
        try:
            if kind == "task":
                task = self._c.tasks.get(ref_id)
                chat, thread, title = task.telegram_chat_id, task.telegram_topic_id, topic_title(
                    task.project, task.description)
            else:
                session = self._c.agent_sessions.get(ref_id)
                chat, thread, title = session.telegram_chat_id, session.telegram_topic_id, topic_title(
                    session.machine_id, f"{session.project} session")
        except DomainError:  # no such task or session
            return None
        return Topic(kind, ref_id, chat, thread or 0, title, "open") if chat is not None else None

    @cached_property
    def intake(self) -> TelegramIntake:
        return TelegramIntake(self._c.db, self._c.queues)

    @cached_property
    def runner(self) -> UpdateRunner:
        return UpdateRunner(self._c.db, self.runtime.process, prepare=self.runtime.start)

    @cached_property
    def reminders(self) -> Reminders:
        return Reminders(ReminderRepository(self._c.db), self.sender)

    @cached_property
    def session_requests(self) -> SessionRequestRepository:
        return SessionRequestRepository(self._c.db)

    @cached_property
    def context(self) -> TelegramContext:
        return TelegramContext(self._c)

    @cached_property
    def conversation(self) -> Conversation:
        return Conversation(self._c.llm, self.context.providers(), remember=self.context.remember)

    def first_refusal(self, user_id: int) -> bool:
        return first_refusal(self._c.db, user_id)

    def project_of(self, topic: Topic) -> str | None:
        """The project of the task or session a topic belongs to."""
        if topic.kind == "task":
            return self._c.tasks.get(topic.ref_id).project
        return self._c.agent_sessions.get(topic.ref_id).project

    def recall(self, query: str, project: str | None) -> list[str]:
        return self.context.recall(query, project)

    def teach(self, project: str, rule: str) -> dict[str, Any]:
        """/learn: a project rule at the taught confidence (0.95), via the learning loop."""
        return self._c.project_rules.teach(project, rule)

    @cached_property
    def task_feedback(self) -> TaskFeedback:
        from chalicelib.learning.adapters.lesson_repository import LessonRepository

        def applied(task_id: str) -> list[str]:
            with self._c.db.connection() as conn:
                return LessonRepository().applied_to(conn, task_id)

        return TaskFeedback(self._c.db, applied, self._c.lessons.feedback)

    def close(self) -> None:
        if "runtime" in self.__dict__:
            self.runtime.close()
