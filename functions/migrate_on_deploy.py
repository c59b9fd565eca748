"""Deploy step: apply pending migrations before new code takes traffic (a CloudFormation custom resource).

Every deploy changes the resource's `DeployId`, so CloudFormation calls this on each create and
update; the stack's functions depend on it, so they are updated only after it answered SUCCESS.
A failure answers FAILED and the stack rolls back. It always answers (a custom resource that
never hears back blocks the stack for an hour). Invoked directly (no ResponseURL), it returns
the same data, which is how `infra/deploy.py migrate` runs it by hand.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Mapping
from typing import Any

from chalicelib.kernel.logging import get_logger

PHYSICAL_ID = "itachi-schema"


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    logger = get_logger()
    status, data, reason = "SUCCESS", {}, "ok"
    try:
        if event.get("RequestType", "Update") in ("Create", "Update"):
            data = migrate()
            logger.info("migrations applied", extra=data)
    except Exception as exc:
        logger.exception("migrations failed")
        status, reason = "FAILED", f"{type(exc).__name__}: {exc}"[:400]
    if event.get("ResponseURL"):
        respond(event, status, data, reason)
    elif status == "FAILED":
        raise RuntimeError(reason)
    return data


def migrate() -> dict[str, Any]:
    from chalicelib.kernel.database import connect_once
    from chalicelib.kernel.migrations import apply_migrations
    from chalicelib.kernel.settings import Settings

    settings = Settings.from_env()
    applied = apply_migrations(settings.database_url, embedding_dim=settings.embedding_dim,
                               embedding_model=settings.embedding_model)
    with connect_once(settings.database_url) as conn:
        version = check_pgvector(conn, os.environ.get("ITACHI_MIN_PGVECTOR", "0.8.0"))
        role = grant_app_role(conn, os.environ)
    return {"Applied": ",".join(applied) or "none", "PgvectorVersion": version, "AppRole": role}


def grant_app_role(conn: Any, env: Mapping[str, str]) -> str:
    """Create or update the application's login from its secret (`DATABASE_APP_SECRET_ID`);
    "none" where there is no such secret (the local stack, a stack from before it existed)."""
    from chalicelib.kernel.app_role import ensure_app_role
    from chalicelib.kernel.secrets import fetch_secrets

    secret_id = env.get("DATABASE_APP_SECRET_ID")
    if not secret_id:
        return "none"
    creds = json.loads(fetch_secrets([secret_id])[secret_id])
    ensure_app_role(conn, str(creds["username"]), str(creds["password"]))
    return str(creds["username"])


def check_pgvector(conn: Any, minimum: str) -> str:
    """Return the installed pgvector version, updating the extension if the engine has a newer one."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        raise RuntimeError("the vector extension is not installed (migration 0001 creates it)")
    if _version(row["extversion"]) < _version(minimum):
        conn.execute("ALTER EXTENSION vector UPDATE")
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if _version(row["extversion"]) < _version(minimum):
        raise RuntimeError(f"pgvector {row['extversion']} is older than {minimum}: choose a newer "
                           f"engine version (DbEngineVersion)")
    return str(row["extversion"])


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def respond(event: dict[str, Any], status: str, data: dict[str, Any], reason: str) -> None:
    body = json.dumps({
        "Status": status, "Reason": reason, "PhysicalResourceId": PHYSICAL_ID,
        "StackId": event["StackId"], "RequestId": event["RequestId"],
        "LogicalResourceId": event["LogicalResourceId"], "Data": data,
    }).encode()
    url = str(event["ResponseURL"])
    if not url.startswith(("https://", "http://")):
        raise ValueError("ResponseURL must be an HTTP(S) URL")
    request = urllib.request.Request(url, data=body, method="PUT",  # noqa: S310 (scheme checked)
                                     headers={"Content-Type": "", "Content-Length": str(len(body))})
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (scheme checked)
        response.read()
