"""Scripted fake of the Anthropic Messages API for running the real Claude Code CLI offline.

`FakeAnthropic(script=[...])` serves `POST /v1/messages` on an ephemeral 127.0.0.1 port.
Each request of the conversation loop consumes the next scripted `Reply`; once the script
is exhausted the model answers `DEFAULT_TEXT` and ends its turn. After a `Reply.tool_use`
the CLI runs the tool and sends its `tool_result` in the next request, which consumes the
next reply.

Requests the CLI makes for its own purposes never consume the script:

- compaction (`/compact` or auto-compact) sends the conversation again with the tools and a
  last user message asking for "a detailed summary of the conversation so far"; it gets a
  canned `<analysis>`/`<summary>` answer (without `<summary>` tags the CLI asks a second
  time with a reminder appended);
- any `/v1/messages` request without tools (titles, summaries on a small model) gets a
  short text;
- `POST /v1/messages/count_tokens` gets `{"input_tokens": ...}`;
- `HEAD /api/hello` (the connectivity check sent when nonessential traffic is not
  disabled) gets 200; any other path gets a 404 error body.

Every request is recorded in `fake.requests`, with its `kind`. Requests the real API refuses
are refused the same way (`anthropic_rules`: the key, `anthropic-version` and JSON content-type
headers; each `tool_use` answered by a `tool_result` in the next turn and no other) with
`x-should-retry: false`, and listed in `fake.refused`.

`Reply.error(429, "...")` answers with an Anthropic-style error body and the header
`x-should-retry: false`, so the CLI gives up at once. Pass `retry=True` to let it retry:
it then ignores `retry-after`, prints a `system`/`api_retry` line per attempt and backs off
about 0.5 s, 1 s, 2.5 s, ... up to CLAUDE_CODE_MAX_RETRIES times (10 by default, 0 in
`claude_env`); an error reply answers `times` consecutive requests.

Giving up on a 429 in `--output-format stream-json` mode, Claude Code 2.1.330 prints an
`assistant` line with `"error": "rate_limit"`, `"api_error_status": 429` and the text
`API Error: Request rejected (429) · <message>`, then a `result` line with
`"subtype": "success"`, `"is_error": true`, `"terminal_reason": "api_error"`,
`"api_error_status": 429`, `"api_error_type": "rate_limit_error"` and the same text in
`result`, and exits 1. In text mode it prints only that text. Claude.ai-style
`anthropic-ratelimit-unified-*` headers change nothing when the CLI uses an API key.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.anthropic_rules import Refusal, check_headers, check_tool_pairing

DEFAULT_TEXT = "Done."
SIDE_TEXT = "Itachi fake side reply."
COMPACT_TEXT = (
    "<analysis>Fake analysis.</analysis>\n<summary>Fake summary of the conversation so far.</summary>"
)
COMPACT_MARKER = "detailed summary of the conversation so far"

_NO_RETRY = {"x-should-retry": "false"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class Reply:
    """One scripted answer of the model; build it with `text`, `tool_use` or `error`."""

    content: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    status: int = 200
    error_type: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    times: int = 1
    input_tokens: int = 100  # the usage it reports: a costly turn reports many (dataclasses.replace)

    @classmethod
    def text(cls, text: str) -> Reply:
        """Answer with text and end the turn."""
        return cls(content=text)

    @classmethod
    def tool_use(cls, name: str, tool_input: dict[str, Any], text: str = "") -> Reply:
        """Call tool `name` with `tool_input`, after an optional text block."""
        return cls(content=text, tool_name=name, tool_input=dict(tool_input))

    @classmethod
    def error(
        cls,
        status: int,
        message: str = "",
        *,
        error_type: str = "",
        retry: bool = False,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> Reply:
        """Fail the next `times` conversation requests with HTTP `status`.

        Unless `retry`, the reply tells the CLI not to retry, so it gives up at once.
        """
        all_headers = {} if retry else dict(_NO_RETRY)
        all_headers.update(headers or {})
        return cls(
            content=message or f"Fake error {status}",
            status=status,
            error_type=error_type or _ERROR_TYPES.get(status, "api_error"),
            headers=all_headers,
            times=times,
        )

    @property
    def is_error(self) -> bool:
        return self.status >= 400

    @property
    def is_tool_use(self) -> bool:
        return bool(self.tool_name)


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request the CLI sent; `kind` is conversation, compact, side or other."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: Any
    kind: str

    @property
    def model(self) -> str:
        return str(self.body.get("model", "")) if isinstance(self.body, dict) else ""


def _request_kind(method: str, path: str, body: Any) -> str:
    """Tell which requests may consume the script (only `conversation` ones may)."""
    if method != "POST" or path != "/v1/messages" or not isinstance(body, dict):
        return "other"
    if not body.get("tools"):
        return "side"
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "user" and COMPACT_MARKER in "\n".join(_texts(last.get("content"))):
        return "compact"
    return "conversation"


class FakeAnthropic:
    """Serve a scripted conversation to the Claude Code CLI; use as a context manager."""

    def __init__(self, script: Sequence[Reply] = ()) -> None:
        self.requests: list[RecordedRequest] = []
        self.refused: list[Refusal] = []  # what it refused as the real API would (headers, tool pairing)
        self._script = list(script)
        self._uses = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> FakeAnthropic:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # keeps __exit__ quick
            name="fake-anthropic",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        """Return the URL to put in ANTHROPIC_BASE_URL."""
        if self._server is None:
            raise RuntimeError("FakeAnthropic is not started; use it as a context manager")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def remaining(self) -> int:
        """Return how many scripted replies were not consumed yet."""
        with self._lock:
            return len(self._script)

    def conversation_requests(self) -> list[RecordedRequest]:
        """Return the requests that consumed (or would have consumed) scripted replies."""
        with self._lock:
            return [r for r in self.requests if r.kind == "conversation"]

    def all_request_text(self) -> str:
        """Return every system, message and tool-result text sent to /v1/messages."""
        with self._lock:
            bodies = [r.body for r in self.requests if r.kind != "other"]
        parts: list[str] = []
        for body in bodies:
            parts.extend(_texts(body.get("system")))
            for message in body.get("messages") or []:
                parts.extend(_texts(message.get("content")))
        return "\n".join(parts)

    def _answer(
        self, method: str, path: str, query: str, headers: dict[str, str], body: Any
    ) -> tuple[int, str, bytes, dict[str, str]]:
        kind = _request_kind(method, path, body)
        refused = self._refusal(method, path, headers, body)
        with self._lock:
            self.requests.append(RecordedRequest(method, path, query, headers, body, kind))
            reply = self._next_reply() if kind == "conversation" and refused is None else None
        if refused is not None:
            self.refused.append(refused)
            error = {"type": refused.error_type, "message": refused.message}
            payload = {"type": "error", "error": error, "request_id": "req_fake_refused"}
            return refused.status, "application/json", _json(payload), _NO_RETRY
        if kind == "other":
            return _other_response(method, path)
        if kind == "compact":
            reply = Reply.text(COMPACT_TEXT)
        elif kind == "side":
            reply = Reply.text(SIDE_TEXT)
        elif reply is None:
            reply = Reply.text(DEFAULT_TEXT)
        if reply.is_error:
            error = {"type": reply.error_type, "message": reply.content}
            payload = {"type": "error", "error": error, "request_id": "req_fake_error"}
            return reply.status, "application/json", _json(payload), reply.headers
        message = self._message(reply, str(body.get("model", "claude")))
        if body.get("stream"):
            return 200, "text/event-stream", b"".join(_sse_events(message)), {}
        return 200, "application/json", _json(message), {}

    def _refusal(self, method: str, path: str, headers: dict[str, str], body: Any) -> Refusal | None:
        if not path.startswith("/v1/"):
            return None  # the connectivity check (HEAD /api/hello) carries no credentials
        refused = check_headers(method, headers)
        if refused is None and path == "/v1/messages" and isinstance(body, dict):
            refused = check_tool_pairing(body.get("messages"))
        return refused

    def _next_reply(self) -> Reply | None:
        if not self._script:
            return None
        reply = self._script[0]
        self._uses += 1
        if self._uses >= reply.times:
            self._script.pop(0)
            self._uses = 0
        return reply

    def _message(self, reply: Reply, model: str) -> dict[str, Any]:
        blocks: list[dict[str, Any]] = []
        if reply.content:
            blocks.append({"type": "text", "text": reply.content})
        if reply.is_tool_use:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_fake_{next(self._ids)}",
                    "name": reply.tool_name,
                    "input": reply.tool_input,
                }
            )
        return {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": blocks,
            "stop_reason": "tool_use" if reply.is_tool_use else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": 20},
        }


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def do_HEAD(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

        def _serve(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            try:
                status, content_type, payload, extra = fake._answer(
                    self.command, url.path, url.query, dict(self.headers.items()), body
                )
            except Exception as exc:  # a bug in the fake must surface in the CLI's output
                error = {"type": "api_error", "message": f"FakeAnthropic failed: {exc!r}"}
                status, content_type = 500, "application/json"
                payload, extra = _json({"type": "error", "error": error}), _NO_RETRY
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("request-id", "req_fake")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the CLI was killed mid-request; there is no one to answer

    return Handler


def _other_response(method: str, path: str) -> tuple[int, str, bytes, dict[str, str]]:
    if path == "/v1/messages/count_tokens" and method == "POST":
        return 200, "application/json", _json({"input_tokens": 100}), {}
    if path == "/api/hello":
        return 200, "application/json", b"{}", {}
    error = {"type": "not_found_error", "message": f"{method} {path} is not faked"}
    return 404, "application/json", _json({"type": "error", "error": error}), {}


def _sse_events(message: dict[str, Any]) -> Iterator[bytes]:
    start = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1},
    }
    yield _event("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opening = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield _event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
        yield _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _json(payload: Any) -> bytes:
    return json.dumps(payload).encode()


def _texts(content: Any) -> Iterable[str]:
    """Yield the text inside a system prompt or message content, tool results included."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            if isinstance(block.get("text"), str):
                yield block["text"]
            if "content" in block:
                yield from _texts(block["content"])
