"""The EventPublisher the task and session code calls: their output, into their topic's stream."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib.adapters.telegram_topic_repository import TelegramTopicRepository
from chalicelib.domain.topic_story import closed_title, event_line, result_message
from chalicelib.services.telegram_streams import TopicStreams


class TopicEventPublisher:
    """Publish to the topic registered for a task or session; without one, do nothing."""

    def __init__(self, topics: TelegramTopicRepository, streams: TopicStreams) -> None:
        self._topics = topics
        self._streams = streams

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        topic = self._topics.by_ref(kind, str(ref_id))
        if topic is None or topic.status != "open":
            return
        lines = [line for line in (event_line(e) for e in events) if line]
        if lines:
            self._streams.post(topic, ["\n".join(lines)])

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        topic = self._topics.by_ref(kind, str(ref_id))
        if topic is None or topic.status != "open":
            return
        self._streams.post(topic, [result_message(status, summary, files_changed)])
        self._streams.close(topic, closed_title(topic.title, status))
