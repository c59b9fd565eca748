"""Forum topics for tasks started outside Telegram (a GitHub issue): opened in the configured
supergroup, registered like the topics `/task` opens, and linked from where the task came from."""

from __future__ import annotations

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.domain.topic_story import topic_link, topic_title
from chalicelib.telegram.services.ports import MessageSender, SendFailed
from chalicelib.telegram.services.topic_directory import TopicDirectory


class TaskTopics:
    def __init__(self, sender: MessageSender, directory: TopicDirectory, forum_chat_id: int | None) -> None:
        self._sender = sender
        self._directory = directory
        self._forum_chat_id = forum_chat_id

    def open(self, project: str, description: str) -> tuple[int, int] | None:
        """Open a topic `project: description` in the supergroup; None without one, or when
        Telegram refuses (the task then runs without a topic)."""
        if self._forum_chat_id is None:
            return None
        try:
            return self._forum_chat_id, self._sender.create_topic(self._forum_chat_id,
                                                                  topic_title(project, description))
        except SendFailed as exc:
            get_logger().warning("no topic for a task from outside Telegram",
                                 extra={"reason": type(exc).__name__})
            return None

    def attach(self, task_id: str, project: str, description: str, place: tuple[int, int]) -> str | None:
        """Register the topic opened for `task_id`; return its t.me link (None outside a supergroup)."""
        chat_id, topic_id = place
        self._directory.register("task", task_id, chat_id, topic_id, topic_title(project, description))
        return topic_link(chat_id, topic_id)
