"""Progress events, posted in batches: at most one request per interval, in order, not lost.

Engines can print hundreds of lines a second; the API gets one POST per `interval_s` (or
sooner once `max_batch` events wait). Consecutive streamed text chunks are joined into one
event. A post that fails in transit keeps the events for the next flush, up to `max_pending`;
a batch the API refuses (a 4xx other than 408/429) is dropped and counted, so one bad batch
never blocks the events after it, nor the task's result.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from chalicelib.contracts.agent_api import ProgressEvent
from chalicelib.contracts.engine_events import EngineEvent, EventKind

Post = Callable[[list[ProgressEvent]], None]
log = logging.getLogger("itachi.agent")


def to_wire(event: EngineEvent) -> ProgressEvent | None:
    """The event as posted to the API, or None for events not worth showing."""
    data = dict(event.data)
    if event.kind == EventKind.TOOL_RESULT and not data.get("is_error"):
        return None
    text = event.text
    if event.kind == EventKind.TOOL_USE:
        target = data.get("file_path") or data.get("path") or data.get("command") or ", ".join(
            str(f) for f in data.get("files") or [])
        text = f"{event.text} {target}".strip()
    return ProgressEvent(event.kind.value, text, data)


class EventBatcher:
    def __init__(self, post: Post, *, interval_s: float = 1.0, max_batch: int = 100,
                 max_pending: int = 2000) -> None:
        self._post = post
        self._interval = interval_s
        self._max_batch = max_batch
        self._max_pending = max_pending
        self._pending: list[ProgressEvent] = []
        self._lock = threading.Lock()  # guards _pending
        self._send = threading.Lock()  # one post at a time keeps the order
        self._last = time.monotonic()
        self.dropped = 0

    def add(self, event: ProgressEvent) -> None:
        with self._lock:
            last = self._pending[-1] if self._pending else None
            if (last and event.kind == last.kind == EventKind.TEXT.value
                    and event.data.get("delta") and last.data.get("delta")):
                self._pending[-1] = replace(last, text=last.text + event.text)
            else:
                self._pending.append(event)
            if len(self._pending) > self._max_pending:
                overflow = len(self._pending) - self._max_pending
                del self._pending[:overflow]
                self.dropped += overflow
            full = len(self._pending) >= self._max_batch
        if full:
            self.flush()

    def flush_if_due(self) -> None:
        if time.monotonic() - self._last >= self._interval:
            self.flush()

    def flush(self) -> bool:
        """Post what is pending; True if nothing is left."""
        with self._send:
            self._last = time.monotonic()
            while True:
                with self._lock:
                    batch = self._pending[: self._max_batch]
                if not batch:
                    return True
                try:
                    self._post(batch)
                except Exception as exc:
                    if not _refused(exc):  # the API is unreachable: keep them for the next flush
                        log.warning("progress events not posted yet (%s pending): %s",
                                    len(self._pending), type(exc).__name__)
                        return False
                    log.warning("progress events refused by the API (%s dropped): %s", len(batch),
                                getattr(exc, "status", "?"))
                    self.dropped += len(batch)
                with self._lock:
                    del self._pending[: len(batch)]


def _refused(exc: Exception) -> bool:
    """A definitive answer about the batch itself (sending it again would fail the same way)."""
    status = getattr(exc, "status", 0)
    return isinstance(status, int) and 400 <= status < 500 and status not in (408, 429)
