"""A threaded JSON HTTP server on an ephemeral 127.0.0.1 port: the base of Itachi's fake APIs."""

from __future__ import annotations

import json
import threading
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, NamedTuple, Self


class Reply(NamedTuple):
    """An HTTP answer: status, a JSON-serialisable body (bytes: sent as they are) and extra headers."""

    status: int
    body: Any
    headers: dict[str, str] | None = None


class LocalHttpServer:
    """Serve ``respond()`` from a background thread; use it as a context manager.

    Each request runs in its own thread, so subclasses guard shared state with a lock.
    """

    def __init__(self) -> None:
        self.closing = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        """Answer one request; runs on a server thread."""
        raise NotImplementedError

    def on_close(self) -> None:
        """Wake requests that are waiting (long polls, scripted delays) so they can finish."""

    def start(self) -> Self:
        """Bind an ephemeral port on 127.0.0.1 and start serving."""
        self._server = _Server(self)
        # A short poll interval keeps close() (which waits for the loop to notice) quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and release the port."""
        self.closing.set()
        self.on_close()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started; use it with `with`")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = self.server.fake.respond(self.command, self.path, self.headers, body)
        raw = isinstance(reply.body, bytes)
        data = reply.body if raw else json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/octet-stream" if raw else "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (reply.headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped waiting (its timeout); there is no one to answer

    do_GET = do_DELETE = do_POST

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: LocalHttpServer) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake
