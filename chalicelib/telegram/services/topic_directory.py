"""Which forum topic belongs to which task or session, and which project a topic is about.

A topic is found in the registry, or, for the moment between a task's creation and the
registration of its topic (or a task created through the API with a chat and topic), from the
task's or session's own record: no event is dropped for arriving early.
"""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.kernel.errors import DomainError
from chalicelib.tasks.domain.agent_session_states import AgentSession
from chalicelib.tasks.domain.task_model import Task
from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.domain.topic_story import topic_title
from chalicelib.telegram.services.ports import UnitOfWorkFactory

FindTask = Callable[[str], Task]  # raises a DomainError when there is no such task
FindSession = Callable[[str], AgentSession]


class TopicDirectory:
    def __init__(self, uow: UnitOfWorkFactory, find_task: FindTask, find_session: FindSession) -> None:
        self._uow = uow
        self._find_task = find_task
        self._find_session = find_session

    def register(self, kind: str, ref_id: str, chat_id: int, topic_id: int, title: str) -> Topic:
        """Record the topic of a new task or session (the first registration wins)."""
        with self._uow() as uow:
            topic = uow.topics.register(kind, ref_id, chat_id, topic_id, title)
            uow.commit()
        return topic

    def by_ref(self, kind: str, ref_id: str) -> Topic | None:
        with self._uow() as uow:
            return uow.topics.by_ref(kind, ref_id)

    def by_thread(self, chat_id: int, topic_id: int) -> Topic | None:
        """The topic a message was written in, if the bot opened it (none outside topics)."""
        if not topic_id:
            return None
        with self._uow() as uow:
            return uow.topics.by_thread(chat_id, topic_id)

    def topic_of(self, kind: str, ref_id: str) -> Topic | None:
        """The topic registered for a task or session, else the one its own record names."""
        topic = self.by_ref(kind, ref_id)
        if topic is not None:
            return topic
        try:
            if kind == "task":
                task = self._find_task(ref_id)
                chat, thread = task.telegram_chat_id, task.telegram_topic_id
                title = topic_title(task.project, task.description)
            else:
                session = self._find_session(ref_id)
                chat, thread = session.telegram_chat_id, session.telegram_topic_id
                title = topic_title(session.machine_id, f"{session.project} session")
        except DomainError:  # no such task or session
            return None
        return Topic(kind, ref_id, chat, thread or 0, title, "open") if chat is not None else None

    def project_of(self, topic: Topic) -> str:
        """The project of the task or session a topic belongs to."""
        if topic.kind == "task":
            return self._find_task(topic.ref_id).project
        return self._find_session(topic.ref_id).project
