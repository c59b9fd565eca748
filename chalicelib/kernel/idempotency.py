"""Consumer idempotency: a business key is recorded once, in the same transaction as its effect."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chalicelib.kernel.redaction import redact, redact_json
from chalicelib.kernel.stored_text import Verbatim

# Types only: `import app` must not load the driver (routes import this module through kernel.http).
if TYPE_CHECKING:
    import psycopg

    from chalicelib.kernel.database import Database


def claim(conn: psycopg.Connection[Any], consumer: str, key: str) -> bool:
    """Record (consumer, key) inside the caller's transaction; False if it was already processed.
    The key is stored verbatim: `project:week` must stay apart from every other key."""
    row = conn.execute(
        "INSERT INTO processed_messages (consumer, message_key) VALUES (%s, %s) "
        "ON CONFLICT DO NOTHING RETURNING message_key",
        (Verbatim(consumer), Verbatim(key)),
    ).fetchone()
    return row is not None


class IdempotencyRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def purge_older_than(self, days: int) -> int:
        """Delete records older than `days`; return how many were removed."""
        with self._db.connection() as conn:
            cur = conn.execute(
                "DELETE FROM processed_messages WHERE processed_at < now() - make_interval(days => %s)",
                (days,),
            )
            replies = conn.execute(
                "DELETE FROM request_replies WHERE created_at < now() - make_interval(days => %s)",
                (days,),
            )
            return cur.rowcount + replies.rowcount


class PostgresClaims:
    """`claim` over a unit of work's connection: the claim commits (or not) with the work."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn

    def claim(self, consumer: str, key: str) -> bool:
        """Record (consumer, key); False if it was already processed."""
        return claim(self._conn, consumer, key)


# -- Idempotent POSTs: one rule for every route --------------------------------------------------
#
# A POST carrying an `Idempotency-Key` header runs in one request-wide transaction
# (`request_transaction`); its key and a fingerprint of the request (method, path, canonical
# body) are inserted first thing in that transaction and its reply stored last, so the record
# commits with the effect or not at all. The same key again with the same request gets the first
# reply (`Idempotent-Replayed: true`) and changes nothing; with a different request it is a 422.
# A concurrent duplicate waits on the first one's row lock, then replays its reply. A request
# that fails (a 4xx raised as a domain error, or a 5xx) stores nothing and rolls back.

MAX_KEY_CHARS = 200


class KeyReused(Exception):
    """The key is recorded for another request (raised inside the transaction to abort it)."""


class Recorded(Exception):
    """The key was recorded by a request that committed meanwhile: replay its reply."""


def fingerprint(method: str, path: str, body: bytes | str | None) -> str:
    import hashlib
    import json

    raw = body.encode() if isinstance(body, str) else (body or b"")
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        canonical = raw
    return hashlib.sha256(method.upper().encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


def reserve(conn: psycopg.Connection[Any], key: str, print_: str) -> None:
    """Insert the key in the request's transaction (waits while a concurrent duplicate runs)."""
    row = conn.execute(
        "INSERT INTO request_replies (idempotency_key, fingerprint) VALUES (%s, %s)"
        " ON CONFLICT DO NOTHING RETURNING idempotency_key", (Verbatim(key), print_)).fetchone()
    if row is None:
        raise Recorded(key)


def store_reply(conn: psycopg.Connection[Any], key: str, status: int, body: str, content_type: str) -> None:
    """Keep the reply, redacted (a reply may echo what was sent): JSON string by string, so a
    replay still parses; the caller's identifiers in it (`"key": ...`) are kept."""
    conn.execute("UPDATE request_replies SET status = %s, body = %s, content_type = %s"
                 " WHERE idempotency_key = %s",
                 (status, Verbatim(_redacted_reply(body, content_type)), content_type, Verbatim(key)))


def _redacted_reply(body: str, content_type: str) -> str:
    import json

    if content_type.startswith("application/json"):
        try:
            return json.dumps(redact_json(json.loads(body), by_name=False))
        except ValueError:
            pass
    return redact(body)


def recorded_reply(db: Database, key: str) -> dict[str, Any] | None:
    with db.direct_connection() as conn:
        row: dict[str, Any] | None = conn.execute(
            "SELECT fingerprint, status, body, content_type FROM request_replies"
            " WHERE idempotency_key = %s AND status IS NOT NULL", (Verbatim(key),)).fetchone()
    return row
