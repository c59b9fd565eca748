"""Two machines with their own keys, and work on the second one, for tests of what a key may act on."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode

from chalicelib.contracts.api_transport import ApiClient
from chalicelib.ssh.services.ssh_runs import RunRequest
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, drain_dispatch, heartbeat, new_task

A, B = "machine-a", "machine-b"
# (the admin's client, machine A's key, machine B's key, ids of B's work by kind)
MachinesWork = tuple[ApiClient, str, str, dict[str, str]]


def two_machines(api: RunningApi) -> MachinesWork:
    """Machine A's and B's keys, both machines online, and B's work: a dispatched task, an interactive
    session, a subagent run, an SSH target and a run on it."""
    admin = client_for(api.url, api.key)
    keys = {m: admin.post("/api/keys", {"name": f"{m}-agent", "kind": "machine", "machine_id": m})["key"]
            for m in (A, B)}
    for m in (A, B):
        heartbeat(admin, m)
    task = new_task(admin, machine=B)
    drain_dispatch(api.container)
    session = admin.post("/api/sessions", {"prompt": "hello", "project": "proj", "machine": B})
    run = admin.post("/api/agents/runs", {"profile": "researcher", "prompt": "look", "machine": B})
    client_for(api.url, keys[B]).post("/api/ssh/targets", {"name": "box-b", "machine_id": B,
                                                           "host": "127.0.0.1", "user": "ops"})
    ssh_run = api.container.ssh_runs.request(RunRequest("uptime", chat_id=1, target="box-b"))
    ids = {"task": task["id"], "session": session["id"], "agent_run": run["id"], "ssh_run": ssh_run.id,
           "agent_run_task": run["task_id"]}
    assert admin.get(f"/api/tasks/{task['id']}")["machine_id"] == B
    return admin, keys[A], keys[B], ids




def call(url: str, key: str, method: str, path: str, query: dict[str, Any], body: Any) -> tuple[int, str]:
    """One request as it is, whatever it answers: (status, body text)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path + (f"?{urlencode(query)}" if query else ""), data=data,
                                     method=method, headers={"Authorization": f"Bearer {key}",
                                                             "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=180) as answer:
            return answer.status, answer.read().decode(errors="replace")
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(errors="replace")
