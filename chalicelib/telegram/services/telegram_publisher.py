"""The EventPublisher the task and session code calls: their output, into their topic's stream.

The topic is found in the registry, or, for the moment between a task's creation and the
registration of its topic (or a task created through the API with a chat and topic), from the
task's or session's own record: no event is dropped for arriving early. Events are positioned
by their sequence number so that publishers racing each other cannot reorder the story.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chalicelib.telegram.adapters.telegram_topic_repository import Topic
from chalicelib.telegram.domain.bot_commands import short_id
from chalicelib.telegram.domain.topic_story import closed_title, event_line, result_message
from chalicelib.telegram.services.telegram_streams import TopicStreams

ResolveTopic = Callable[[str, str], Topic | None]  # (kind, ref id) -> its topic, if any


class TopicEventPublisher:
    """Publish to the topic of a task or session; without one, do nothing."""

    def __init__(self, resolve: ResolveTopic, streams: TopicStreams) -> None:
        self._resolve = resolve
        self._streams = streams

    def published(self, ref_id: str, events: Sequence[Mapping[str, Any]], *, kind: str = "task") -> None:
        topic = self._resolve(kind, str(ref_id))
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
        topic = self._resolve(kind, str(ref_id))
        if topic is None or topic.status != "open":
            return
        self._streams.post(topic, [result_message(status, summary, files_changed)])
        self._streams.close(topic, closed_title(topic.title, status))
