"""The `/mcp` endpoint's backend: the API's own services in process, validated by the same
request models as the REST routes and answering the same JSON, so a tool behaves the same
whether it reached the API over `/mcp` or through `itachi mcp`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.http import validate_input
from chalicelib.mcp.services.ports import BackendError, Json

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container

T = TypeVar("T")


def _guarded(call: Callable[[], T]) -> T:
    try:
        return call()
    except DomainError as exc:
        raise BackendError(exc.status, exc.message) from None


class ServiceBackend:
    def __init__(self, container: Container) -> None:
        self._c = container

    def search(self, *, query: str, project: str, limit: int, category: str | None, mode: str) -> Json:
        from chalicelib.memory.schemas import SearchQuery, search_json

        def run() -> Json:
            q = validate_input(SearchQuery, {"query": query, "project": project, "limit": limit,
                                             "category": category, "mode": mode, "include_untrusted": True})
            return search_json(self._c.memory.search(q.query, q.project, limit=q.limit, category=q.category,
                                                     mode=q.mode, include_global=q.include_global,
                                                     include_untrusted=q.include_untrusted))
        return _guarded(run)

    def store(self, *, project: str, content: str, category: str, tags: list[str], source: str) -> Json:
        from chalicelib.auth.request_principal import request_writer, require_vouch
        from chalicelib.memory.schemas import MemoryIn

        def run() -> Json:
            metadata: Json = {"source": "mcp", **({"tags": tags} if tags else {})}
            body = validate_input(MemoryIn, {"project": project, "content": content, "category": category,
                                             "metadata": metadata, "source": source})
            require_vouch(body.source)  # the /mcp caller's key, as POST /api/memory checks it
            draft = body.draft(request_writer())  # the /mcp caller's key decides, never `origin`
            stored = self._c.memory.remember(draft)
            return {"id": stored.id, "deduplicated": stored.deduplicated, "trusted": draft.trusted}
        return _guarded(run)

    def recent(self, *, project: str, category: str | None, tag: str | None, limit: int) -> Json:
        from chalicelib.memory.schemas import RecentQuery, memory_json

        def run() -> Json:
            q = validate_input(RecentQuery, {"project": project, "category": category, "tag": tag,
                                             "limit": limit, "include_untrusted": True})
            memories = self._c.memory.recent(q.project, limit=q.limit, category=q.category,
                                             metadata=q.metadata_filter(),
                                             include_untrusted=q.include_untrusted)
            return {"results": [memory_json(m) for m in memories]}
        return _guarded(run)

    def get_memory(self, memory_id: str) -> Json:
        from chalicelib.memory.schemas import MemoryIdPath, memory_json

        def run() -> Json:
            ident = str(validate_input(MemoryIdPath, {"id": memory_id}).id)
            return memory_json(self._c.memory.get(ident))
        return _guarded(run)

    def forget(self, memory_id: str) -> Json:
        from chalicelib.memory.schemas import MemoryIdPath

        def run() -> Json:
            ident = str(validate_input(MemoryIdPath, {"id": memory_id}).id)
            self._c.memory.delete(ident)
            return {"id": ident, "deleted": True}
        return _guarded(run)

    def memory_stats(self, project: str) -> Json:
        from chalicelib.memory.schemas import StatsQuery, stats_json

        return _guarded(lambda: stats_json(self._c.memory.stats(
            validate_input(StatsQuery, {"project": project}).project)))

    def deployment(self) -> Json:
        from chalicelib.ops.services.health import describe_deployment

        return _guarded(lambda: describe_deployment(self._c.settings, self._c.db, self._c.queues))

    def rules(self, project: str, limit: int, as_of: str | None = None) -> Json:
        from chalicelib.learning.routes import RulesQuery

        def run() -> Json:
            q = validate_input(RulesQuery, {"project": project, "limit": limit,
                                            **({"as_of": as_of} if as_of else {})})
            return {"project": q.project,
                    "rules": self._c.project_rules.listed(q.project, as_of=q.moment(), limit=q.limit)}
        return _guarded(run)

    def briefing(self, project: str) -> Json:
        from chalicelib.sessions.routes import BriefingQuery

        return _guarded(lambda: self._c.sessions.briefing(
            validate_input(BriefingQuery, {"project": project}).project))

    def create_task(self, *, project: str, description: str, repo: str | None, engine: str | None,
                    machine: str | None) -> Json:
        from chalicelib.tasks.routes.task_routes import CreateTaskBody

        body: dict[str, Any] = {"project": project, "description": description, "repo": repo,
                                "engine": engine, "machine": machine}
        return _guarded(lambda: self._c.tasks.create(validate_input(
            CreateTaskBody, {k: v for k, v in body.items() if v is not None}).new_task()).to_json())

    def get_task(self, ref: str) -> Json:
        return _guarded(lambda: self._c.tasks.get(ref).to_json())

    def task_events(self, ref: str, *, limit: int) -> Json:
        def run() -> Json:
            task = self._c.tasks.get(ref)
            events = self._c.tasks.events(task.id, after=0, limit=limit)
            return {"task_id": task.id, "status": task.status.value,
                    "events": [e.to_json() for e in events],
                    "next_after": events[-1].seq if events else 0}
        return _guarded(run)

    def spawn_agent(self, body: Json) -> Json:
        from chalicelib.agents.run_routes import SpawnBody
        from chalicelib.agents.services.runs import SpawnRequest

        def run() -> Json:
            b = validate_input(SpawnBody, body)
            parent = self._c.agent_runs.resolve(b.parent_run_id) if b.parent_run_id else None
            return self._c.agent_runs.spawn(SpawnRequest(
                b.profile, b.prompt, b.project, b.repo, b.machine, "agent" if parent else "user",
                parent)).to_json()
        return _guarded(run)

    def message_agent(self, *, run: str | None, profile: str | None, body: str, sender: str) -> Json:
        from chalicelib.agents.run_routes import MessageBody, delivery_json

        def send() -> Json:
            b = validate_input(MessageBody, {"body": body, "sender": sender})
            sent = self._c.agent_messaging.send(b.body, run=run, profile=profile, sender=b.sender)
            return delivery_json(sent)
        return _guarded(send)

    def add_cron(self, body: Json) -> Json:
        from chalicelib.agents.profile_routes import CronBody

        def add() -> Json:
            b = validate_input(CronBody, body)
            return self._c.agent_cron.add(schedule=b.schedule, prompt=b.prompt, profile=b.profile,
                                          run=b.run_id, project=b.project, until=b.until).to_json()
        return _guarded(add)

    def list_tasks(self, *, project: str, status: str | None, limit: int) -> Json:
        from chalicelib.tasks.routes.task_routes import ListTasksQuery

        def run() -> Json:
            q = validate_input(ListTasksQuery, {"project": project, "status": status, "limit": limit})
            tasks = self._c.tasks.list_tasks(status=q.status, project=q.project, limit=q.limit)
            return {"tasks": [t.to_json() for t in tasks]}
        return _guarded(run)

    def graph_context(self, *, project: str, query: str, deep: bool) -> Json:
        from chalicelib.graph.schemas import ContextQuery

        def run() -> Json:
            q = validate_input(ContextQuery, {"project": project, "query": query, "deep": deep})
            retrieve = self._c.graph_retrieve
            found = retrieve.deep(q.project, q.query) if q.deep else retrieve.fast(q.project, q.query)
            return found.as_json()
        return _guarded(run)

    def graph_contradictions(self, *, project: str, status: str, limit: int) -> Json:
        from chalicelib.graph.schemas import ContradictionsQuery

        def run() -> Json:
            q = validate_input(ContradictionsQuery, {"project": project, "status": status, "limit": limit})
            return {"contradictions": self._c.graph_admin.contradictions(q.project, q.status, q.limit)}
        return _guarded(run)
