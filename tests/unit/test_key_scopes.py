"""The key model without a database: the access table, MCP tool scopes, and the lookup cache's TTL."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.auth.domain.access_policy import RULES, Area, refusal, tool_refusal
from chalicelib.auth.domain.api_keys import ApiKey, KeyKind, KeySpec, Principal, key_hash, new_key
from chalicelib.auth.services.authenticator import Authenticator
from chalicelib.auth.services.key_admin import KeyAdmin
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork

MACHINE = Principal("m1-agent", KeyKind.MACHINE, machine_id="m1")
READER = Principal("reader", KeyKind.CLIENT, read_only=True)
LIMITED = Principal("hooks-p", KeyKind.CLIENT, projects=frozenset({"p"}))


class _Keys:
    def __init__(self) -> None:
        self.rows: dict[bytes, ApiKey] = {}

    def add(self, key: ApiKey, key_hash: bytes) -> ApiKey:
        self.rows[key_hash] = key
        return key

    def live_by_hash(self, key_hash: bytes) -> ApiKey | None:
        key = self.rows.get(key_hash)
        return key if key is not None and key.revoked_at is None else None

    def listing(self, *, include_revoked: bool) -> list[ApiKey]:
        return [k for k in self.rows.values() if include_revoked or k.revoked_at is None]

    def lock_machine(self, machine_id: str) -> list[ApiKey]:
        return [k for k in self.listing(include_revoked=False) if k.spec.machine_id == machine_id]

    def revoke(self, name: str) -> ApiKey | None:
        from datetime import UTC, datetime

        for digest, key in self.rows.items():
            if key.spec.name == name and key.revoked_at is None:
                self.rows[digest] = ApiKey(key.id, key.spec, key.prefix, key.created_at, datetime.now(UTC))
                return self.rows[digest]
        return None


class _Unit(InMemoryUnitOfWork):
    def __init__(self, keys: _Keys) -> None:
        super().__init__()
        self.keys = keys


def _refused(principal: Principal, route: str, body: Any = None, **query: str) -> bool:
    method, path = route.split(" ", 1)
    return refusal(principal, method, path, query, body) is not None


def test_every_agent_route_is_refused_to_a_client_key_and_open_to_its_machine_only() -> None:
    agent_routes = [route for route, rule in RULES.items() if rule.area is Area.AGENT]
    assert len(agent_routes) >= 14
    for route in agent_routes:
        assert _refused(LIMITED, route, {"machine_id": "m1"}, project="p")
        assert _refused(MACHINE, route, {"machine_id": "m2"})
        assert not _refused(MACHINE, route, {"machine_id": "m1"})
    assert _refused(MACHINE, "DELETE /api/ssh/targets/{name}", machine_id="m2")


def test_a_route_missing_from_the_table_is_for_admin_keys_only() -> None:
    assert _refused(MACHINE, "POST /api/some/new/route")
    assert _refused(READER, "GET /api/keys")
    assert not _refused(Principal("root", KeyKind.ADMIN), "POST /api/some/new/route")


def test_a_limited_key_must_name_its_projects_even_inside_a_batch() -> None:
    assert not _refused(LIMITED, "POST /api/memory/batch", {"memories": [{"project": "p"}]})
    assert _refused(LIMITED, "POST /api/memory/batch", {"memories": [{"project": "p"}, {"project": "q"}]})
    assert _refused(LIMITED, "GET /api/memory/recent")
    assert not _refused(LIMITED, "GET /api/memory/recent", project="p")


def test_mcp_tools_follow_the_same_scope() -> None:
    assert tool_refusal(READER, "memory_store", {"content": "x"}, "p") is not None
    assert tool_refusal(READER, "memory_search", {"query": "x"}, "p") is None
    assert tool_refusal(LIMITED, "memory_search", {"query": "x"}, "q") is not None
    assert tool_refusal(LIMITED, "memory_get", {"id": "x"}, "p") is not None  # by id: no project to check
    assert tool_refusal(LIMITED, "memory_store", {"content": "x"}, "p") is None


def test_every_mcp_tool_stands_for_rest_routes_of_the_access_table() -> None:
    from chalicelib.auth.domain.access_policy import TOOL_ROUTES
    from chalicelib.contracts.mcp_tools import TOOLS_BY_NAME

    assert set(TOOL_ROUTES) == set(TOOLS_BY_NAME) | {"resources/read"}
    assert {route for routes in TOOL_ROUTES.values() for route in routes} <= set(RULES)


def test_a_machine_key_is_bound_to_the_machine_of_what_it_acts_on() -> None:
    from chalicelib.auth.domain.machine_scope import Owned

    def machine_of(kind: Owned, ref: str) -> tuple[bool, str | None]:
        return {"t1": (True, "m1"), "t2": (True, "m2"), "t3": (True, None)}.get(ref, (False, None))

    def refused(route: str, body: Any = None, params: dict[str, str] | None = None, **query: str) -> bool:
        method, path = route.split(" ", 1)
        return refusal(MACHINE, method, path, query, body, params, machine_of) is not None

    assert refused("POST /api/tasks", {"project": "p", "description": "x", "machine": "m2"})
    assert not refused("POST /api/tasks", {"project": "p", "description": "x", "machine": "m1"})
    assert refused("GET /api/tasks", machine="m2") and not refused("GET /api/tasks")
    assert refused("GET /api/tasks/{task_id}/events", params={"task_id": "t2"})
    assert refused("POST /api/tasks/{task_id}/cancel", params={"task_id": "t3"})  # on no machine yet
    assert not refused("GET /api/tasks/{task_id}", params={"task_id": "t1"})
    assert not refused("GET /api/tasks/{task_id}", params={"task_id": "missing"})  # the route's 404
    assert refused("POST /api/machines/{machine_id}/folders/{listing_id}", {}, {"machine_id": "m2"})
    assert refused("POST /api/agents/runs", {"profile": "x", "prompt": "y", "parent_run_id": "t2"})
    assert refused("POST /api/agents/cron", {"schedule": "0 9 * * *", "prompt": "y"})
    assert refusal(MACHINE, "GET", "/api/tasks/{task_id}", {}, None, {"task_id": "t1"}) is not None


def test_a_key_spec_says_what_is_wrong_with_it() -> None:
    with pytest.raises(InvalidInput, match="machine_id"):
        KeySpec("m", KeyKind.MACHINE)
    with pytest.raises(InvalidInput, match="admin"):
        KeySpec("a", KeyKind.ADMIN, read_only=True)
    with pytest.raises(InvalidInput, match="name"):
        KeySpec("bad name", KeyKind.CLIENT)


def test_a_revoked_key_is_refused_once_the_cache_lifetime_has_passed() -> None:
    keys, now = _Keys(), [0.0]
    admin = KeyAdmin(lambda: _Unit(keys))
    auth = Authenticator(lambda: _Unit(keys), ("configured-admin",), ttl_s=30, clock=lambda: now[0])
    record, secret = admin.create(KeySpec("laptop", KeyKind.CLIENT))
    assert record.prefix == secret[:12] and key_hash(secret) in keys.rows

    assert auth.principal(secret) == Principal.of(record)
    admin.revoke("laptop")
    now[0] = 29.0
    assert auth.principal(secret) is not None  # still cached in this process
    now[0] = 30.0
    assert auth.principal(secret) is None
    configured = auth.principal("configured-admin")
    assert configured is not None and configured.is_admin
    assert auth.principal(new_key()) is None


ADMIN_ONLY = {"GET /api/usage", "POST /api/memory/evict", "POST /api/memory/check/fix",
              "GET /api/ssh/targets", "GET /api/ssh/runs", "POST /api/keys", "GET /api/keys",
              "DELETE /api/keys/{name}", "POST /api/machines/invites",
              # bulk memory writes by id, snapshots and profiles: an operator's
              "POST /api/memory/import", "POST /api/memory/snapshots", "POST /api/memory/snapshots/load",
              "POST /api/memory/profiles/load", "POST /api/memory/profiles/unload",
              # the brain: its switch, settings and proposals' actions are an operator's
              "GET /api/brain", "POST /api/brain", "POST /api/brain/cycle", "GET /api/brain/proposals",
              "POST /api/brain/proposals/{proposal_id}/approve",
              "POST /api/brain/proposals/{proposal_id}/reject",
              # subagent profiles and removing cron jobs
              "POST /api/agents/profiles", "DELETE /api/agents/profiles/{name}",
              "DELETE /api/agents/cron/{job_id}",
              # a person vouching for quarantined text: an agent's key must not be able to
              "POST /api/memory/{memory_id}/promote",
              # a one-time sign-in link to the web console
              "POST /api/console/links",
              # namespaces: who shares what, and a rule promoted for every member, are an operator's
              "POST /api/namespaces", "GET /api/namespaces", "GET /api/namespaces/{name}",
              "POST /api/namespaces/{name}/projects", "DELETE /api/namespaces/{name}/projects",
              "POST /api/namespaces/{name}/rules"}
NO_KEY = {"GET /health", "POST /telegram/webhook", "POST /webhooks/github", "POST /api/machines/join"}


def test_every_route_is_placed_in_the_key_model_on_purpose() -> None:
    from app import app

    served = {f"{method} {path}" for path, methods in app.routes.items() for method in methods}
    # A new route is admin-only until it is added to RULES (or, if it is meant to be, here).
    # The web console answers to its own session cookie (chalicelib/console/web.py), never to a key.
    console = {route for route in served if route.split(" ", 1)[1].startswith("/console")}
    assert served - set(RULES) == ADMIN_ONLY | NO_KEY | console
    assert set(RULES) <= served
