"""Post text to a chat's topic through the paced, ordered topic streams, for output that has no
topic of its own (an SSH command's output goes where the command was asked for)."""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.telegram.domain.telegram_records import Topic
from chalicelib.telegram.services.topic_streams import TopicStreams


class ChatStreamPublisher:
    def __init__(self, streams: TopicStreams) -> None:
        self._streams = streams

    def post(self, stream: str, chat_id: int, topic_id: int, texts: Sequence[str]) -> None:
        kind, _, ref_id = stream.partition(":")
        self._streams.post(Topic(kind, ref_id, chat_id, topic_id, "", "open"), list(texts))
