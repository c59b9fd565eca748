"""Health: is the database reachable, are the queues there."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.queue_table import QUEUES
from chalicelib.ops.services.ports import DatabaseProbe, Queues

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings  # pydantic-settings: built by bootstrap on first use


def check_health(database: DatabaseProbe, queues: Queues) -> dict[str, Any]:
    """Return {status, database, queues}; status is "ok" only when every part is up."""
    db_status = _check(database.ping)
    queue_status = _check(lambda: [queues.url(spec.key) for spec in QUEUES])
    healthy = db_status["status"] == "up" and queue_status["status"] == "up"
    return {"status": "ok" if healthy else "degraded", "database": db_status, "queues": queue_status}


def _check(probe: Callable[[], object]) -> dict[str, str]:
    try:
        probe()
    except DomainError as exc:  # e.g. Unavailable: its message says what is wrong
        return {"status": "down", "reason": exc.message}
    except Exception as exc:  # a health probe reports every failure rather than raising
        return {"status": "down", "reason": type(exc).__name__}
    return {"status": "up"}


def describe_deployment(settings: Settings, database: DatabaseProbe, queues: Queues,
                        retention: Callable[[], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Stage, embedding model and dimension, LLM on/off, the health report, and retention."""
    s = settings
    described = {
        "stage": s.stage,
        "embedding": {"provider": s.embedding_provider, "model": s.embedding_model,
                      "dimension": s.embedding_dim},
        "llm": {"enabled": s.llm_enabled, "model": s.llm_model if s.llm_enabled else None},
        "health": check_health(database, queues),
    }
    if retention is not None:
        try:
            described["retention"] = retention()
        except DomainError as exc:  # the database is down: the health report says so
            described["retention"] = {"unavailable": exc.message}
    return described
