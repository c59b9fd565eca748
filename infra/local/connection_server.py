"""The local API's listening socket: a thread per connection, and a stop that takes effect at once.

`serve_forever` notices a shutdown only at its next poll (0.5 s by default, paid by every test
that starts a server); this loop also waits on a socket pair that `stop` writes to.
"""

from __future__ import annotations

import selectors
import socket
import sys
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from infra.local.reading_connections import ReadingConnections
from infra.local.worker_lanes import WorkerLanes


class ConnectionServer(ThreadingHTTPServer):
    """A thread per connection; the requests' readers and workers are bounded by `readers` and `lanes`."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128
    readers: ReadingConnections
    lanes: WorkerLanes

    def server_activate(self) -> None:
        super().server_activate()
        self._wake_in, self._wake_out = socket.socketpair()
        self._stopping, self._stopped = threading.Event(), threading.Event()

    def serve(self) -> None:
        """Accept connections until `stop`, which wakes this loop at once (serve_forever polls)."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_in, selectors.EVENT_READ)
            while not self._stopping.is_set():
                if any(key.fileobj is self for key, _ in selector.select()):
                    self._accept()
        self._stopped.set()

    def _accept(self) -> None:
        try:
            request, client_address = self.get_request()
        except OSError:  # the client gave up before we took it
            return
        try:
            self.process_request(request, client_address)  # its own thread
        except Exception:
            self.handle_error(request, client_address)
            self.shutdown_request(request)

    def stop(self, started: bool) -> None:
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._wake_out.send(b"x")
        if started:
            self._stopped.wait()
        self._wake_in.close()
        self._wake_out.close()
        self.server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):  # the client went away or stopped reading
            return
        super().handle_error(request, client_address)
