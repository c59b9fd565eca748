"""`itachi status`: API, database, queues, scheduler and agent, each up or down with a reason."""

from __future__ import annotations

from pathlib import Path

from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.contracts.local_home import load_client_config, read_json


def _alive(pid: object) -> bool:
    """Running, and not a zombie (a dead child nobody reaped still answers kill(pid, 0))."""
    from infra.local.postgres_watch import process_alive

    return isinstance(pid, int) and process_alive(pid)


def collect_status(home: Path) -> dict[str, tuple[str, str]]:
    state = read_json(home / "run" / "state.json")
    config = load_client_config(home)
    report: dict[str, tuple[str, str]] = {}
    try:
        health = ApiClient(config, timeout_s=5).get("/health")
        report["api"] = ("up", config.api_url)
    except ApiError as exc:
        health = exc.body if exc.status == 503 and isinstance(exc.body, dict) else None
        if health is not None:  # /health answered, but a dependency is down
            report["api"] = ("up", f"{config.api_url} (degraded)")
        else:
            report["api"] = ("down", exc.message)
    for part in ("database", "queues"):
        if health is None:
            report[part] = ("down", "API not reachable")
        else:
            item = health.get(part, {})
            report[part] = (item.get("status", "down"), item.get("reason", ""))
    if state.get("database") == "embedded" and not _postgres_running(home):
        report["database"] = ("down", "the embedded Postgres is not running (itachi up restarts it)")
    stack_alive = _alive(state.get("pid"))
    report["scheduler"] = (("up", f"in itachi up (pid {state['pid']})") if stack_alive
                           else ("down", "itachi up is not running"))
    if _alive(state.get("agent_pid")):
        report["agent"] = ("up", f"pid {state['agent_pid']}")
    else:
        report["agent"] = ("down", "no local agent running" if stack_alive
                           else "itachi up is not running")
    return report


def _postgres_running(home: Path) -> bool:
    from infra.local.postgres_watch import postmaster_pid, process_alive

    return process_alive(postmaster_pid(home / "pgdata"))
