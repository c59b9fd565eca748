"""Health: is the database reachable, are the queues there."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import Container
from chalicelib.kernel.queue_table import QUEUES


def check_health(container: Container) -> dict[str, Any]:
    """Return {status, database, queues}; status is "ok" only when every part is up."""
    database = _check(lambda: container.db.ping())
    queues = _check(lambda: [container.queues.url(spec.key) for spec in QUEUES])
    healthy = database["status"] == "up" and queues["status"] == "up"
    return {"status": "ok" if healthy else "degraded", "database": database, "queues": queues}


def _check(probe: Any) -> dict[str, str]:
    try:
        probe()
    except Exception as exc:  # a health probe reports every failure rather than raising
        return {"status": "down", "reason": type(exc).__name__}
    return {"status": "up"}


def describe_deployment(container: Container) -> dict[str, Any]:
    """Stage, embedding model and dimension, LLM on/off, and the health report."""
    s = container.settings
    return {
        "stage": s.stage,
        "embedding": {"provider": s.embedding_provider, "model": s.embedding_model,
                      "dimension": s.embedding_dim},
        "llm": {"enabled": s.llm_enabled, "model": s.llm_model if s.llm_enabled else None},
        "health": check_health(container),
    }
