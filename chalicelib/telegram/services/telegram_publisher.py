"""The TaskEventPublisher the task and session code calls: their output, into their topic's stream.

Events are positioned by their sequence number so that publishers racing each other cannot
reorder the story. Without a topic (or once it is closed) nothing is published.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chalicelib.telegram.domain.bot_commands import short_id
from chalicelib.telegram.domain.topic_story import closed_title, event_line, result_message
from chalicelib.telegram.services.topic_directory import TopicDirectory
from chalicelib.telegram.services.topic_streams import TopicStreams


class TopicEventPublisher:
    def __init__(self, topics: TopicDirectory, streams: TopicStreams) -> None:
        self._topics = topics
        self._streams = streams

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        topic = self._topics.topic_of(kind, str(ref_id))
        if topic is None or topic.status != "open":
            return
        texts: list[str] = []
        positions: list[int | None] = []
        for event in events:
            created = event.get("kind") == "created" and kind == "task"
            line = f"Task {short_id(str(ref_id))} queued." if created else event_line(event)
            if line:
                texts.append(line)
                seq = event.get("seq")
                positions.append(int(seq) if isinstance(seq, int) else None)
        if texts:
            self._streams.post(topic, texts, positions)

    def finished(self, ref_id: str, status: str, summary: str, *, kind: str = "task",
                 files_changed: Sequence[str] = ()) -> None:
        topic = self._topics.topic_of(kind, str(ref_id))
        if topic is None or topic.status != "open":
            return
        self._streams.post(topic, [result_message(status, summary, files_changed)])
        self._streams.close(topic, closed_title(topic.title, status))
