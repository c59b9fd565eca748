"""Stream task and session output to their forum topics: batched, paced, in order, never lost.

Output is appended to a per-stream outbox (each piece already fits one message) and, once
that is committed, a wake-up is queued. `pump` sends the pending output packed into as few
messages as possible, one message a pump, at most one per `flush_interval_s` per chat: Telegram
takes about 20 messages a minute in a group, whatever topic they go to, so the pace (and a 429's
`retry_after`) is kept per chat, under a lock per chat, for all the streams of that chat. When
Telegram answers 429 the chat waits `retry_after` and the stream resumes from the first unsent
row: a row is deleted only once the message holding it was accepted, and only one sender works
on a stream at a time (a lock held by the pump's own unit of work), so output is neither lost
nor reordered. A crash between sending and deleting may repeat one message.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from chalicelib.kernel.logging import get_logger
from chalicelib.telegram.domain.telegram_records import OutboxRow, Topic
from chalicelib.telegram.domain.telegram_text import pack_pieces, split_message
from chalicelib.telegram.services.ports import (
    FloodControl,
    MessageSender,
    OutboxItem,
    StreamTrigger,
    Undeliverable,
    UnitOfWorkFactory,
)

BUSY_RETRY_S = 1
MAX_INLINE_WAIT_S = 2.0  # a 429's retry_after up to this is slept through
MAX_PACING_SLEEP_S = 0.5  # a longer wait for the flush pace is rescheduled instead
MAX_ROWS_PER_PUMP = 200
# One message a chat per 3.5 s is about 17 a minute: under Telegram's 20 a minute in a group,
# with room for the bot's other messages there (replies, buttons, announcements).
FLUSH_INTERVAL_S = 3.5


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StreamPacing:
    """At most one message per `flush_interval_s` per chat; tests pass a shorter pace and `sleep`."""

    flush_interval_s: float = FLUSH_INTERVAL_S
    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], datetime] = field(default=_utc_now)


class TopicStreams:
    def __init__(self, uow: UnitOfWorkFactory, sender: MessageSender, trigger: StreamTrigger,
                 pacing: StreamPacing | None = None) -> None:
        self._uow = uow
        self._sender = sender
        self._trigger = trigger
        self._pacing = pacing or StreamPacing()

    def post(self, topic: Topic, texts: Sequence[str], positions: Sequence[int | None] | None = None) -> None:
        """Queue texts for the topic, split to fit, and wake its sender.

        `positions` (one per text, e.g. event sequence numbers) order the output when texts are
        published out of order; texts without one follow the positioned ones.
        """
        places = list(positions) if positions is not None else [None] * len(texts)
        items = [("text", part, place) for text, place in zip(texts, places, strict=True)
                 for part in split_message(text)]
        self._enqueue(topic, items)

    def close(self, topic: Topic, title: str) -> None:
        """After everything queued so far, rename the topic to `title` and close it."""
        self._enqueue(topic, [("close", title, None)])

    def _enqueue(self, topic: Topic, items: Sequence[OutboxItem]) -> None:
        if not items:
            return
        with self._uow() as uow:
            uow.outbox.enqueue(topic.stream, topic.chat_id, topic.topic_id, items)
            uow.after_commit(lambda: self._wake(topic.stream))
            uow.commit()

    def _wake(self, stream: str, delay_s: int = 0) -> None:
        try:
            self._trigger.trigger(stream, delay_s)
        except Exception:  # the minutely sweep wakes streams whose wake-up was lost
            get_logger().exception("stream wake-up not queued", extra={"stream": stream})

    def pending_streams(self) -> list[str]:
        """Every stream with output waiting, however recent."""
        with self._uow() as uow:
            return uow.outbox.stalled_streams(older_than_s=-1.0)

    def wake_stalled(self, older_than_s: float) -> int:
        """Wake every stream with output waiting longer than `older_than_s`; return how many."""
        with self._uow() as uow:
            stalled = uow.outbox.stalled_streams(older_than_s)
        for stream in stalled:
            self._wake(stream)
        return len(stalled)

    def pump(self, stream: str) -> int:
        """Send the stream's next message, if its chat's pace allows; return how many went out."""
        with self._uow() as held:  # holds the stream's and its chat's locks until the pump is done
            if not held.outbox.try_lock(stream):  # another sender is at work; look again once it is done
                get_logger().debug("stream busy", extra={"stream": stream})
                self._wake(stream, BUSY_RETRY_S)
                return 0
            first = self._pending(stream, 1)
            if not first:  # an extra wake-up: all was sent already
                return 0
            pace = pace_key(first[0].chat_id)
            if not held.outbox.try_lock(pace):  # another stream of this chat is sending
                self._wake(stream, BUSY_RETRY_S)
                return 0
            if not self._wait_for_turn(stream, pace):
                return 0
            rows = self._pending(stream, MAX_ROWS_PER_PUMP)  # what arrived while waiting too
            sent, more = self._flush(stream, pace, rows)
            if more:
                self._wake(stream, math.floor(self._pacing.flush_interval_s))
            return sent

    def _pending(self, stream: str, limit: int) -> list[OutboxRow]:
        with self._uow() as uow:
            return uow.outbox.pending(stream, limit)

    def _wait_for_turn(self, stream: str, pace: str) -> bool:
        """Honour retry_after and the chat's pace: sleep briefly, or reschedule and say False.

        Pacing waits are common, so only their last fraction is slept (the rest is an SQS
        delay): a sender must not hold its consumer while other streams wait. A 429's wait is
        rare and is slept through when short.
        """
        with self._uow() as uow:
            state = uow.outbox.state(pace)
        now = self._pacing.now()
        flood = (state.not_before - now).total_seconds() if state.not_before is not None else 0.0
        wait_pace = (self._pacing.flush_interval_s - (now - state.last_flush_at).total_seconds()
                     if state.last_flush_at is not None else 0.0)
        if flood > MAX_INLINE_WAIT_S:
            self._wake(stream, math.ceil(flood))
            return False
        if wait_pace > MAX_PACING_SLEEP_S and wait_pace > flood:
            self._wake(stream, max(1, math.floor(wait_pace)))  # the new wake-up sleeps the remainder
            return False
        wait = max(flood, wait_pace)
        if wait > 0:
            self._pacing.sleep(wait)
        return True

    def _flush(self, stream: str, pace: str, rows: list[OutboxRow]) -> tuple[int, bool]:
        """Send the next message of `rows` and the topic changes around it (they are not messages);
        answer (messages sent, whether more is pending)."""
        sent = 0
        for batch in _batches(rows):
            first = batch[0]
            if first.kind != "close" and sent:
                return sent, True  # the next message waits for the chat's pace
            try:
                if first.kind == "close":
                    self._close_topic(stream, first)
                else:
                    text = "\n".join(r.body for r in batch)
                    self._sender.send(first.chat_id, text, topic_id=first.topic_id)
                    sent = 1
            except FloodControl as flood:
                with self._uow() as uow:
                    uow.outbox.defer(pace, flood.seconds)
                    uow.commit()
                self._wake(stream, max(1, math.ceil(flood.seconds)))
                get_logger().info("telegram flood control", extra={"stream": stream,
                                                                   "retry_after_s": flood.seconds})
                return sent, False
            except Undeliverable:
                with self._uow() as uow:
                    dropped = uow.outbox.drop(stream)
                    uow.commit()
                get_logger().warning("stream undeliverable, output dropped",
                                     extra={"stream": stream, "rows": dropped})
                return sent, False
            with self._uow() as uow:
                uow.outbox.delivered(pace, [r.id for r in batch])
                uow.commit()
        return sent, len(rows) == MAX_ROWS_PER_PUMP

    def _close_topic(self, stream: str, row: OutboxRow) -> None:
        kind, _, ref_id = stream.partition(":")
        if row.topic_id:
            try:
                self._sender.rename_topic(row.chat_id, row.topic_id, row.body)
                self._sender.close_topic(row.chat_id, row.topic_id)
            except Undeliverable:
                pass  # already closed or deleted by a user: the story has ended either way
        with self._uow() as uow:
            uow.topics.mark_closed(kind, ref_id)
            uow.commit()


def pace_key(chat_id: int) -> str:
    """The key of a chat's pace and flood control in the outbox's stream state."""
    return f"chat:{chat_id}"


def _batches(rows: list[OutboxRow]) -> list[list[OutboxRow]]:
    """Consecutive text rows packed into messages; each close row on its own."""
    batches: list[list[OutboxRow]] = []
    run: list[OutboxRow] = []
    for row in [*rows, None]:
        if row is not None and row.kind == "text":
            run.append(row)
            continue
        batches += [[run[i] for i in group] for group in pack_pieces([r.body for r in run])]
        run = []
        if row is not None:
            batches.append([row])
    return batches
