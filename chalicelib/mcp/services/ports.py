"""The port the MCP tools call: Itachi's API operations, answering the API's JSON shapes.

Two implementations: the stdio server's (HTTP to the API with the hooks' config, in `agent/`)
and the API's own (`chalicelib/mcp/service_backend.py`, the services in process). Both answer
exactly what the REST route of the same name answers, so the tools render one shape.
"""

from __future__ import annotations

from typing import Any, Protocol

Json = dict[str, Any]


class BackendError(Exception):
    """An operation refused or failed: status as HTTP would say it (0: API unreachable)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class ItachiBackend(Protocol):
    def search(self, *, query: str, project: str, limit: int, category: str | None,
               mode: str) -> Json:
        """GET /api/memory/search, untrusted memories included (marked)."""

    def store(self, *, project: str, content: str, category: str, tags: list[str], source: str) -> Json:
        """POST /api/memory (tags go in metadata.tags; the server checks the key may vouch for `source`)."""

    def recent(self, *, project: str, category: str | None, tag: str | None, limit: int) -> Json:
        """GET /api/memory/recent, untrusted memories included (marked)."""

    def get_memory(self, memory_id: str) -> Json:
        """GET /api/memory/{id}."""

    def forget(self, memory_id: str) -> Json:
        """DELETE /api/memory/{id}."""

    def memory_stats(self, project: str) -> Json:
        """GET /api/memory/stats."""

    def deployment(self) -> Json:
        """GET /api/status."""

    def rules(self, project: str, limit: int, as_of: str | None = None) -> Json:
        """GET /api/rules."""

    def briefing(self, project: str) -> Json:
        """GET /api/session/briefing."""

    def create_task(self, *, project: str, description: str, repo: str | None, engine: str | None,
                    machine: str | None) -> Json:
        """POST /api/tasks."""

    def get_task(self, ref: str) -> Json:
        """GET /api/tasks/{id}."""

    def task_events(self, ref: str, *, limit: int) -> Json:
        """GET /api/tasks/{id}/events."""

    def list_tasks(self, *, project: str, status: str | None, limit: int) -> Json:
        """GET /api/tasks."""

    def spawn_agent(self, body: Json) -> Json:
        """POST /api/agents/runs."""

    def message_agent(self, *, run: str | None, profile: str | None, body: str, sender: str) -> Json:
        """POST /api/agents/runs/{id}/messages or /api/agents/profiles/{name}/messages."""

    def add_cron(self, body: Json) -> Json:
        """POST /api/agents/cron."""

    def graph_context(self, *, project: str, query: str, deep: bool) -> Json:
        """GET /api/graph/context."""

    def graph_contradictions(self, *, project: str, status: str, limit: int) -> Json:
        """GET /api/graph/contradictions."""
