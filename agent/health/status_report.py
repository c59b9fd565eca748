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


_KIND_NAMES = {"task_events": "task events", "session_edits": "session edits",
               "transcript_chunks": "transcript chunks", "llm_usage": "LLM usage rows"}


def retention_line(home: Path) -> str:
    """The retention settings and what the last cleanup removed, by kind (from /api/status)."""
    try:
        retention = ApiClient(load_client_config(home), timeout_s=5).get("/api/status").get("retention")
    except ApiError as exc:
        return f"unknown ({exc.message})"
    if not isinstance(retention, dict) or "days" not in retention:
        reason = retention.get("unavailable", "") if isinstance(retention, dict) else ""
        return f"unknown {reason}".strip()
    kept = ", ".join(f"{_KIND_NAMES.get(k, k)} {d} days" if d else f"{_KIND_NAMES.get(k, k)} forever"
                     for k, d in retention["days"].items())
    last = retention.get("last_run")
    if not last:
        return f"kept: {kept}; no cleanup has run yet"
    removed = ", ".join(f"{last['removed'][k]} {_KIND_NAMES.get(k, k)}" for k in retention["days"]
                        if k in last["removed"]) or "nothing"
    more = "" if last["complete"] else " (time budget reached; the next run goes on)"
    return f"kept: {kept}; last run {last['started_at'][:16]} removed {removed}{more}"
