"""Serve the Chalice app on 127.0.0.1 with one thread per request.

Chalice's own local gateway does the API Gateway translation; this adds what API Gateway is
configured to do in production: 404 for unknown routes, 413 for oversized bodies (checked
from Content-Length before the body is read), 400 for a Content-Length that is not a number,
a read timeout (a client that declares more body than it sends gets a 408 and the connection
is closed, the thread freed) and a bound on concurrent connections (beyond it, an immediate
503 with Retry-After). What a request hands off with `after_response` (chalicelib/kernel/
after_response.py) runs on its thread once the response is written.
"""

from __future__ import annotations

import json
import threading
from http.server import ThreadingHTTPServer
from typing import Any

from chalice.config import Config
from chalice.local import (
    ChaliceRequestHandler,
    ForbiddenError,
    LocalChalice,
    LocalGatewayException,
)

from chalicelib.kernel.after_response import responding, wait_idle


class _Handler(ChaliceRequestHandler):
    max_body_bytes = 1_000_000
    protocol_version = "HTTP/1.1"
    # Headers and body are separate writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold every response back by ~40 ms.
    disable_nagle_algorithm = True
    timeout = 15  # seconds a client may stay silent mid-request or idle between requests

    def _generic_handle(self) -> None:
        with responding():  # what the request left for after its response runs once it is written
            self._handle()

    def _handle(self) -> None:
        length = _content_length(self.headers.get("Content-Length"))
        if length is None:
            self.close_connection = True
            self._send_json(400, {"error": "invalid_input",
                                  "message": "Content-Length is not a valid length"})
            return
        if length > self.max_body_bytes:
            self._discard_body(length)
            self.close_connection = True
            self._send_json(413, {"error": "payload_too_large",
                                  "message": f"request body exceeds {self.max_body_bytes} bytes"})
            return
        try:
            headers, body = self._parse_payload()
        except TimeoutError:
            self.close_connection = True
            self._send_json(408, {"error": "request_timeout",
                                  "message": "the request body did not arrive in time"})
            return
        if body is not None and len(body) < length:  # the client closed before sending it all
            self.close_connection = True
            return
        try:
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

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = do_PATCH = do_OPTIONS = _generic_handle

    def log_message(self, format: str, *args: Any) -> None:
        """Access logs go through the app's structured logger instead."""


def _content_length(raw: str | None) -> int | None:
    """The declared body length; None when it is not a non-negative integer."""
    if raw is None or not raw.strip():
        return 0
    text = raw.strip()
    return int(text) if text.isdigit() and len(text) < 19 else None


_BUSY_BODY = b'{"error":"unavailable","message":"too many connections; retry shortly"}'
BUSY_RESPONSE = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                 b"Retry-After: 1\r\nConnection: close\r\nContent-Length: "
                 + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    max_connections = 128  # one thread each; beyond this a client gets a 503 at once

    def server_activate(self) -> None:
        super().server_activate()
        self._slots = threading.BoundedSemaphore(self.max_connections)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(BUSY_RESPONSE)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class ApiServer:
    """The Chalice app on a threaded HTTP server, run in a background thread."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 8787,
                 max_body_bytes: int = 1_000_000, read_timeout_s: float = 15.0,
                 max_connections: int = 128) -> None:
        # Chalice keeps current_request on the app; LocalChalice makes it thread-local.
        app.__class__ = LocalChalice
        handler = type("Handler", (_Handler,), {"max_body_bytes": max_body_bytes,
                                                "timeout": read_timeout_s})
        config = Config(chalice_stage="local", config_from_disk={})

        def factory(*args: Any) -> _Handler:
            return handler(*args, app_object=app, config=config)

        server_class = type("Server", (_Server,), {"max_connections": max_connections})
        self.server = server_class((host, port), factory)
        self.port = int(self.server.server_address[1])
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="api",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        wait_idle(timeout_s=10)  # work handed off until after a response (a queue send) is not cut off
