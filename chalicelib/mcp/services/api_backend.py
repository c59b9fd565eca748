"""The MCP tools' one backend: each operation is one call to the REST route it stands for.

One table, a method per tool naming its route. `itachi mcp` (`agent/mcp_stdio.py`) gives it the
CLI's HTTP client (`ApiClient`, the configuration every command uses); `/mcp` gives it
`chalicelib/mcp/route_client.RouteClient`, which hands the call to the app in process. The route's
guard, request model and answer are the tool's."""

from __future__ import annotations

import urllib.parse
from typing import Any

from chalicelib.contracts.api_transport import ApiError
from chalicelib.mcp.services.ports import BackendError, Json, RestClient


def _quoted(ref: str) -> str:
    return urllib.parse.quote(ref, safe="")


class ApiBackend:
    """Each operation is one API call; API refusals become BackendError with the API's message."""

    def __init__(self, client: RestClient) -> None:
        self._client = client

    def _get(self, path: str, **params: Any) -> Json:
        try:
            return dict(self._client.get(path, **params) or {})
        except ApiError as exc:
            raise BackendError(exc.status, exc.message) from None

    def _send(self, method: str, path: str, body: Json | None = None) -> Json:
        try:
            answer = self._client.post(path, body) if method == "POST" else self._client.delete(path)
        except ApiError as exc:
            raise BackendError(exc.status, exc.message) from None
        return dict(answer or {})

    def search(self, *, query: str, project: str, limit: int, category: str | None, mode: str) -> Json:
        return self._get("/api/memory/search", query=query, project=project, limit=limit,
                         category=category, mode=mode, include_untrusted="true")

    def store(self, *, project: str, content: str, category: str, tags: list[str], source: str) -> Json:
        metadata: Json = {"source": "mcp", **({"tags": tags} if tags else {})}
        return self._send("POST", "/api/memory", {"project": project, "content": content,
                                                  "category": category, "metadata": metadata,
                                                  "source": source})

    def recent(self, *, project: str, category: str | None, tag: str | None, limit: int) -> Json:
        return self._get("/api/memory/recent", project=project, category=category, tag=tag, limit=limit,
                         include_untrusted="true")

    def get_memory(self, memory_id: str) -> Json:
        return self._get(f"/api/memory/{_quoted(memory_id)}")

    def forget(self, memory_id: str) -> Json:
        return self._send("DELETE", f"/api/memory/{_quoted(memory_id)}")

    def memory_stats(self, project: str) -> Json:
        return self._get("/api/memory/stats", project=project)

    def deployment(self) -> Json:
        return self._get("/api/status")

    def rules(self, project: str, limit: int, as_of: str | None = None) -> Json:
        return self._get("/api/rules", project=project, limit=limit, **({"as_of": as_of} if as_of else {}))

    def briefing(self, project: str) -> Json:
        return self._get("/api/session/briefing", project=project)

    def create_task(self, *, project: str, description: str, repo: str | None, engine: str | None,
                    machine: str | None) -> Json:
        body = {"project": project, "description": description, "repo": repo, "engine": engine,
                "machine": machine}
        return self._send("POST", "/api/tasks", {k: v for k, v in body.items() if v is not None})

    def get_task(self, ref: str) -> Json:
        return self._get(f"/api/tasks/{_quoted(ref)}")

    def task_events(self, ref: str, *, limit: int) -> Json:
        return self._get(f"/api/tasks/{_quoted(ref)}/events", limit=limit)

    def list_tasks(self, *, project: str, status: str | None, limit: int) -> Json:
        return self._get("/api/tasks", project=project, status=status, limit=limit)

    def spawn_agent(self, body: Json) -> Json:
        return self._send("POST", "/api/agents/runs", body)

    def message_agent(self, *, run: str | None, profile: str | None, body: str, sender: str) -> Json:
        target = f"runs/{_quoted(run)}" if run else f"profiles/{_quoted(profile or '')}"
        return self._send("POST", f"/api/agents/{target}/messages", {"body": body, "sender": sender})

    def add_cron(self, body: Json) -> Json:
        return self._send("POST", "/api/agents/cron", body)

    def graph_context(self, *, project: str, query: str, deep: bool) -> Json:
        return self._get("/api/graph/context", project=project, query=query, deep=str(deep).lower())

    def graph_contradictions(self, *, project: str, status: str, limit: int) -> Json:
        return self._get("/api/graph/contradictions", project=project, status=status, limit=limit)
