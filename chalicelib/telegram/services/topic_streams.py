"""Stream task and session output to their forum topics: batched, paced, in order, never lost.

Output is appended to a per-stream outbox (each piece already fits one message) and, once
that is committed, a wake-up is queued. `pump` sends what is pending as few messages as
possible, at most one flush per `flush_interval_s` per stream. When Telegram answers 429 the
stream waits `retry_after` and resumes from the first unsent row: a row is deleted only once
the message holding it was accepted, and only one sender works on a stream at a time (a lock
held by the pump's own unit of work), so output is neither lost nor reordered. A crash between
sending and deleting may repeat one message.
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


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class StreamPacing:
    """At most one flush per `flush_interval_s` per stream; tests pass 0 and a recording `sleep`."""

    flush_interval_s: float = 1.5
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
        """Send one flush of the stream's pending output; return how many messages went out."""
        with self._uow() as held:  # holds the stream's lock until the pump is done
            if not held.outbox.try_lock(stream):  # another sender is at work; look again once it is done
                get_logger().debug("stream busy", extra={"stream": stream})
                self._wake(stream, BUSY_RETRY_S)
                return 0
            if not self._pending(stream, 1):  # an extra wake-up: all was sent already
                return 0
            if not self._wait_for_turn(stream):
                return 0
            rows = self._pending(stream, MAX_ROWS_PER_PUMP)  # what arrived while waiting too
            sent = self._flush(stream, rows)
            if len(rows) == MAX_ROWS_PER_PUMP:
                self._wake(stream, BUSY_RETRY_S)
            return sent

    def _pending(self, stream: str, limit: int) -> list[OutboxRow]:
        with self._uow() as uow:
            return uow.outbox.pending(stream, limit)

    def _wait_for_turn(self, stream: str) -> bool:
        """Honour retry_after and the flush pace: sleep briefly, or reschedule and say False.

        Pacing waits are common, so only their last fraction is slept (the rest is an SQS
        delay): a sender must not hold its consumer while other streams wait. A 429's wait is
        rare and is slept through when short.
        """
        with self._uow() as uow:
            state = uow.outbox.state(stream)
        now = self._pacing.now()
        flood = (state.not_before - now).total_seconds() if state.not_before is not None else 0.0
        pace = (self._pacing.flush_interval_s - (now - state.last_flush_at).total_seconds()
                if state.last_flush_at is not None else 0.0)
        if flood > MAX_INLINE_WAIT_S:
            self._wake(stream, math.ceil(flood))
            return False
        if pace > MAX_PACING_SLEEP_S and pace > flood:
            self._wake(stream, max(1, math.floor(pace)))  # the new wake-up sleeps the remainder
            return False
        wait = max(flood, pace)
        if wait > 0:
            self._pacing.sleep(wait)
        return True

    def _flush(self, stream: str, rows: list[OutboxRow]) -> int:
        sent = 0
        for batch in _batches(rows):
            first = batch[0]
            try:
                if first.kind == "close":
                    self._close_topic(stream, first)
                else:
                    text = "\n".join(r.body for r in batch)
                    self._sender.send(first.chat_id, text, topic_id=first.topic_id)
                    sent += 1
            except FloodControl as flood:
                with self._uow() as uow:
                    uow.outbox.defer(stream, flood.seconds)
                    uow.commit()
                self._wake(stream, max(1, math.ceil(flood.seconds)))
                get_logger().info("telegram flood control", extra={"stream": stream,
                                                                   "retry_after_s": flood.seconds})
                return sent
            except Undeliverable:
                with self._uow() as uow:
                    dropped = uow.outbox.drop(stream)
                    uow.commit()
                get_logger().warning("stream undeliverable, output dropped",
                                     extra={"stream": stream, "rows": dropped})
                return sent
            with self._uow() as uow:
                uow.outbox.delivered(stream, [r.id for r in batch])
                uow.commit()
        return sent

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
