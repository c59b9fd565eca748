"""Serve the Chalice app on 127.0.0.1 with one thread per connection.

Chalice's own local gateway does the API Gateway translation; this adds what API Gateway is
configured to do in production: 404 for unknown routes, 405 with `Allow` for a method a route
does not take, 413 for oversized bodies (checked from Content-Length before the body is read),
400 for a Content-Length that is not a number, and deadlines on reading a request: its line and
headers within `header_timeout_s`, its declared body within `body_timeout_s` (else a 408 and the
connection is closed). Reading a request takes no worker (infra/local/reading_connections.py:
at most so many reading connections per client, the oldest cut off with a 503 beyond it); a
request read whole is served in a bounded set of workers with a reserved lane for health and the
agent's routes (infra/local/worker_lanes.py), beyond which it gets an immediate 503 with
Retry-After. What a request hands off with `after_response` (chalicelib/kernel/after_response.py)
runs on its thread, in its worker slot, once the response is written.
"""

from __future__ import annotations

import io
import json
import threading
from http import HTTPStatus
from typing import Any

from chalice.config import Config
from chalice.local import ChaliceRequestHandler, ForbiddenError, LocalChalice, LocalGatewayException

from chalicelib.kernel.after_response import responding, wait_idle
from infra.local.connection_server import ConnectionServer
from infra.local.reading_connections import DeadlineReader, Evicted, ReadingConnections
from infra.local.worker_lanes import WorkerLanes, health_or_agent_route

Payload = tuple[dict[str, str], bytes | None]


class _Handler(ChaliceRequestHandler):
    max_body_bytes = 1_000_000
    protocol_version = "HTTP/1.1"
    # Headers and body are separate writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold every response back by ~40 ms.
    disable_nagle_algorithm = True
    header_timeout_s = 10.0  # the request line and headers, from when the server waits for them
    body_timeout_s = 15.0  # the whole declared body
    timeout = 15  # seconds a write may wait on a client that does not read its answer
    server: ConnectionServer

    def setup(self) -> None:
        super().setup()
        self.reader = DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self.reader)

    def handle_one_request(self) -> None:
        self.close_connection = True
        payload = self._read_request()
        if payload is not None:
            self.connection.settimeout(self.timeout)
            self._serve(*payload)
        self.wfile.flush()

    def _read_request(self) -> Payload | None:
        """The request's headers and body; None once it is answered or the client is gone."""
        self.reader.begin(self.header_timeout_s, new_request=True)
        try:
            with self.server.readers.reading(self.client_address[0], self.reader):
                return self._read_payload() if self._read_head() else None
        except TimeoutError:
            self.close_connection = True
            if self.reader.received:  # silence on an idle keep-alive connection is no request
                self._send_json(408, {"error": "request_timeout",
                                      "message": "the request did not arrive in time"})
        except Evicted:
            self.close_connection = True
            if self.reader.received:
                self._send_busy()
        return None

    def _read_head(self) -> bool:
        """Read and parse the request line and headers (parse_request answers what is malformed)."""
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG)
            return False
        return bool(self.raw_requestline) and self.parse_request()

    def _read_payload(self) -> Payload | None:
        length = _content_length(self.headers.get_all("Content-Length") or [])
        if length is None:
            self.close_connection = True
            self._send_json(400, {"error": "invalid_input",
                                  "message": "Content-Length is not a valid length"})
            return None
        self.reader.begin(self.body_timeout_s)
        if length > self.max_body_bytes:
            self._discard_body(length)
            self.close_connection = True
            self._send_json(413, {"error": "payload_too_large",
                                  "message": f"request body exceeds {self.max_body_bytes} bytes"})
            return None
        body = self.rfile.read(length) if length else None
        if body is not None and len(body) < length:  # the client closed before sending it all
            self.close_connection = True
            return None
        return dict(self.headers), body

    def _serve(self, headers: dict[str, str], body: bytes | None) -> None:
        release = self.server.lanes.enter(self.command, self.path)
        if release is None:
            self.close_connection = True
            self._send_busy()
            return
        try:
            with responding():  # what the request left for after its response runs once it is written
                self._dispatch(headers, body)
        finally:
            release()

    def _dispatch(self, headers: dict[str, str], body: bytes | None) -> None:
        try:  # any method goes to the gateway: one a route does not take is its 405 with Allow
            response = self.local_gateway.handle_request(
                method=self.command, path=self.path, headers=headers, body=body)
        except ForbiddenError:  # API Gateway's "Missing Authentication Token": no such route
            self._send_json(404, {"error": "not_found", "message": f"no route for {self.path}"})
            return
        except LocalGatewayException as exc:
            self._send_error_response(exc)
            return
        out_headers = {**response["headers"], **response["multiValueHeaders"]}
        response = self._handle_binary(response)
        self._send_http_response(response["statusCode"], out_headers, response["body"])

    def _discard_body(self, length: int) -> None:
        """Read and drop a moderately oversized body so the client sees our 413, not a reset."""
        remaining = length if length <= 16 * self.max_body_bytes else 0
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                break
            remaining -= len(chunk)

    def _send_busy(self) -> None:
        self._send_json(503, {"error": "unavailable", "message": "the server is busy; retry shortly"},
                        {"Retry-After": "1"})

    def _send_json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Access logs go through the app's structured logger instead."""


def _content_length(values: list[str]) -> int | None:
    """The declared body length (0 when none is declared); None when it is not one non-negative integer."""
    lengths = {value.strip() for value in values}
    if not lengths:
        return 0
    text = lengths.pop()
    return int(text) if not lengths and text.isdigit() and len(text) < 19 else None


class ApiServer:
    """The Chalice app on a threaded HTTP server, run in a background thread."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 8787,
                 max_body_bytes: int = 1_000_000, header_timeout_s: float = 10.0,
                 body_timeout_s: float = 15.0, max_readers_per_client: int = 64,
                 max_readers: int = 256, max_workers: int = 64, reserved_workers: int = 8) -> None:
        # Chalice keeps current_request on the app; LocalChalice makes it thread-local.
        app.__class__ = LocalChalice
        handler = type("Handler", (_Handler,), {
            "max_body_bytes": max_body_bytes, "header_timeout_s": header_timeout_s,
            "body_timeout_s": body_timeout_s})
        config = Config(chalice_stage="local", config_from_disk={})

        def factory(*args: Any) -> _Handler:
            return handler(*args, app_object=app, config=config)

        self.server = ConnectionServer((host, port), factory)
        self.server.readers = ReadingConnections(per_client=max_readers_per_client, total=max_readers)
        self.server.lanes = WorkerLanes(shared=max_workers, reserved=reserved_workers,
                                        priority=health_or_agent_route(app))
        self.port = int(self.server.server_address[1])
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve, name="api", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.stop(started=self._thread.is_alive())
        self.server.readers.evict_all()  # a connection still sending its request is not served
        wait_idle(timeout_s=10)  # work handed off until after a response (a queue send) is not cut off
