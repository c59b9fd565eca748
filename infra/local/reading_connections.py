"""Connections still reading their request: each read bounded by one deadline, a cap per client.

A slow client costs the server a socket and a thread while it sends its request, never a worker:
the request line and headers must arrive within one deadline, the declared body within another
(a deadline for the whole phase, not a timeout per read, so a byte every few seconds does not
hold a connection open). Each client address may have only so many connections reading at once,
and the server only so many in all; a new connection beyond either cuts off the oldest such
reader (of that client, or of the client with the most), so a flood of slow connections cannot
keep out a client that sends its request at once. Locally every client is 127.0.0.1: the agent,
the hooks and the CLI send each request whole, so they spend no time among the readers.
"""

from __future__ import annotations

import io
import math
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress


class Evicted(ConnectionAbortedError):
    """The connection was cut off to make room for a newer one."""


class DeadlineReader(io.RawIOBase):
    """A socket's reads, all bounded by the deadline of the current phase."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self._sock = sock
        self.deadline = math.inf
        self.received = 0  # bytes of the current request so far
        self.evicted = False

    def begin(self, budget_s: float, *, new_request: bool = False) -> None:
        """Start a phase: what it reads must arrive within budget_s."""
        self.deadline = time.monotonic() + budget_s
        if new_request:
            self.received = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(left)
        count = self._sock.recv_into(buffer)
        if count == 0 and self.evicted:
            raise Evicted("cut off for a newer connection")
        self.received += count
        return count

    def evict(self) -> None:
        """Wake the reading thread with `Evicted`; the connection stays writable for its answer."""
        self.evicted = True
        with suppress(OSError):  # already closed by its own thread
            self._sock.shutdown(socket.SHUT_RD)


class ReadingConnections:
    """The connections reading a request now, at most `per_client` per address and `total` in all."""

    def __init__(self, *, per_client: int, total: int) -> None:
        self.per_client, self.total = per_client, total
        self._lock = threading.Lock()
        self._by_client: dict[str, dict[DeadlineReader, None]] = {}  # oldest first
        self._count = 0

    @contextmanager
    def reading(self, client: str, reader: DeadlineReader) -> Iterator[None]:
        """Count reader as reading for client while the block runs, cutting off the oldest beyond a cap."""
        with self._lock:
            self._make_room(client)
            self._by_client.setdefault(client, {})[reader] = None
            self._count += 1
        try:
            yield
        finally:
            with self._lock:
                readers = self._by_client.get(client, {})
                if reader in readers:  # not cut off meanwhile
                    del readers[reader]
                    self._count -= 1
                if not readers:
                    self._by_client.pop(client, None)

    def evict_all(self) -> None:
        with self._lock:
            for readers in self._by_client.values():
                for reader in readers:
                    reader.evict()

    def _make_room(self, client: str) -> None:
        own = self._by_client.get(client, {})
        if len(own) >= self.per_client:
            self._evict_oldest(client)
        elif self._count >= self.total:
            self._evict_oldest(max(self._by_client, key=lambda other: len(self._by_client[other])))

    def _evict_oldest(self, client: str) -> None:
        readers = self._by_client[client]
        oldest = next(iter(readers))
        del readers[oldest]
        self._count -= 1
        oldest.evict()
