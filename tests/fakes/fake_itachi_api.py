"""A small stand-in for the Itachi API over real HTTP, for running hooks end to end.

It answers the endpoints the hooks call with canned data, records every request, and can
be made slow (``delay_s``) to push hooks past their deadlines.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from email.message import Message
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from tests.fakes.local_http_server import LocalHttpServer, Reply


class Recorded(NamedTuple):
    """One request as the fake received it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


class FakeItachiApi(LocalHttpServer):
    """Canned Itachi API on 127.0.0.1: use it with ``with``, point ITACHI_API_URL at ``url``."""

    def __init__(
        self,
        *,
        api_key: str = "test-key",
        delay_s: float = 0.0,
        memories: list[dict[str, Any]] | None = None,
        briefing: dict[str, Any] | None = None,
        rules: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__()
        self.api_key = api_key
        self.delay_s = delay_s
        self.memories = memories or []
        self.briefing = briefing or {}
        self.rules = rules or []
        self.graph_text = ""  # the graph memory's context, answered when a search asks for it
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()

    def posted(self, path: str) -> list[Any]:
        """Bodies of the POSTs received on path, in arrival order."""
        with self._lock:
            return [r.body for r in self.requests if r.method == "POST" and r.path == path]

    def received(self, path: str) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def wait_for(self, predicate: Callable[[FakeItachiApi], bool], timeout: float = 5.0) -> bool:
        """Poll predicate until it holds or timeout seconds pass."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate(self):
                return True
            time.sleep(0.02)
        return predicate(self)

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        parts = urlsplit(path)
        query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        lowered = {key.lower(): value for key, value in headers.items()}
        decoded = json.loads(body) if body else None
        with self._lock:
            self.requests.append(Recorded(method, parts.path, query, lowered, decoded))
        if self.delay_s and self.closing.wait(self.delay_s):
            return Reply(503, {"error": "shutting down"})
        if lowered.get("authorization") != f"Bearer {self.api_key}":
            return Reply(401, {"error": "unauthorized"})
        return self._answer(method, parts.path, query)

    def _answer(self, method: str, path: str, query: dict[str, str]) -> Reply:
        limit = int(query.get("limit") or 5)
        if method == "GET" and path == "/api/memory/search" and "project_limit" in query:
            graph = {"graph": {"text": self.graph_text}} if query.get("graph") == "true" else {}
            return Reply(200, {"results": self._per_scope(query), "mode": "hybrid", **graph})
        if method == "GET" and path in ("/api/memory/search", "/api/memory/recent"):
            found = [m for m in self.memories if m.get("project") == query.get("project")]
            return Reply(200, {"results": found[:limit], "mode": "hybrid"})
        if method == "GET" and path == "/api/session/briefing":
            return Reply(200, {"project": query.get("project"), **self.briefing})
        if method == "GET" and path in ("/api/rules", "/api/project/learnings"):
            return Reply(200, {"rules": self.rules[:limit]})
        if method == "POST" and path in ("/api/memory", "/api/memory/code-change"):
            return Reply(201, {"id": f"mem-{len(self.requests)}", "deduplicated": False})
        if method == "POST" and path.startswith("/api/session/"):
            return Reply(200, {"ok": True})
        if method == "POST" and path.startswith("/api/agents/runs/") and path.endswith("/notes"):
            return Reply(201, {"kind": "notes"})
        return Reply(404, {"error": "not found"})


    def _per_scope(self, query: dict[str, str]) -> list[dict[str, Any]]:
        """The project's first `project_limit` memories, then _global's first `global_limit`."""
        found = []
        for project, limit in ((query.get("project"), query["project_limit"]),
                               ("_global", query.get("global_limit", "0"))):
            found += [m for m in self.memories if m.get("project") == project][:int(limit)]
        return found


def unreachable_url() -> str:
    """A URL on 127.0.0.1 where nothing listens, so connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
