"""Serve the Chalice app on 127.0.0.1 with one thread per request.

Chalice's own local gateway does the API Gateway translation; this adds what API Gateway is
configured to do in production: 404 for unknown routes and 413 for oversized bodies (checked
from Content-Length before the body is read).
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


class _Handler(ChaliceRequestHandler):
    max_body_bytes = 1_000_000
    protocol_version = "HTTP/1.1"
    # Headers and body are separate writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK hold every response back by ~40 ms.
    disable_nagle_algorithm = True

    def _generic_handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > self.max_body_bytes:
            self._discard_body(length)
            self.close_connection = True
            self._send_json(413, {"error": "payload_too_large",
                                  "message": f"request body exceeds {self.max_body_bytes} bytes"})
            return
        headers, body = self._parse_payload()
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


class ApiServer:
    """The Chalice app on a threaded HTTP server, run in a background thread."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 8787,
                 max_body_bytes: int = 1_000_000) -> None:
        # Chalice keeps current_request on the app; LocalChalice makes it thread-local.
        app.__class__ = LocalChalice
        handler = type("Handler", (_Handler,), {"max_body_bytes": max_body_bytes})
        config = Config(chalice_stage="local", config_from_disk={})

        def factory(*args: Any) -> _Handler:
            return handler(*args, app_object=app, config=config)

        self.server = _Server((host, port), factory)
        self.port = int(self.server.server_address[1])
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, name="api",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
