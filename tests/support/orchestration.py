"""Helpers for task orchestration tests: an API client, heartbeats, and draining queues."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch

DISPATCH_SPEC = next(q for q in QUEUES if q.key == "dispatch")


def client_for(url: str, key: str, home: Path | None = None) -> ApiClient:
    return ApiClient(ClientConfig(home=home or Path("/nonexistent"), api_url=url, api_key=key))


def heartbeat(client: ApiClient, machine_id: str, *, instance: str | None = None, **fields: Any) -> Any:
    body = {"machine_id": machine_id, "agent_instance": instance or f"i-{machine_id}",
            "max_concurrent": 2, "engine_priority": ["claude", "codex", "gemini"], **fields}
    return client.post("/api/machines/heartbeat", body)


def offline_machine(client: ApiClient, machine_id: str) -> None:
    """Register a machine whose agent is offline: a task or run for it waits, queued."""
    heartbeat(client, machine_id, status="offline")


def drain_dispatch(container: Container, rounds: int = 3) -> int:
    """Run the dispatch consumer over everything on the dispatch queue (as Lambda would)."""
    handled = 0
    for _ in range(rounds):
        got = deliver_batch(container.queues, DISPATCH_SPEC, wait_s=0)
        handled += got
        if not got:
            break
    return handled


def machine_messages(container: Container, machine_id: str, *, delete: bool = True) -> list[dict[str, Any]]:
    key = f"machine-{machine_id}"
    out = []
    for _ in range(5):
        got = container.queues.receive(key, max_messages=10, wait_s=0)
        if not got:
            break
        for m in got:
            out.append(json.loads(m.body))
            if delete:
                container.queues.delete(key, m.receipt_handle)
    return out


def new_task(client: ApiClient, description: str = "do it", **fields: Any) -> dict[str, Any]:
    body = {"description": description, "project": "proj", **fields}
    return client.post("/api/tasks", body)  # type: ignore[no-any-return]


def wait_for(probe: Callable[[], Any], *, timeout_s: float = 20.0, every_s: float = 0.1,
             what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")
        time.sleep(every_s)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"
