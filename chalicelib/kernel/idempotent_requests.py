"""The HTTP side of idempotent POSTs (the rule is stated in `chalicelib.kernel.idempotency`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from chalice import Response
from chalice.app import Request

from chalicelib.kernel.errors import DomainError, InvalidInput
from chalicelib.kernel.idempotency import (
    MAX_KEY_CHARS,
    Recorded,
    fingerprint,
    recorded_reply,
    reserve,
    store_reply,
)
from chalicelib.kernel.request_transaction import RequestTransaction

_database: Callable[[], Any] | None = None
_caller: Callable[[], str] = lambda: "-"  # noqa: E731


def use_database(provider: Callable[[], Any], caller: Callable[[], str] | None = None) -> None:
    """Where idempotency records live, and who the current request's caller is (set once by the
    app; no I/O until a keyed POST arrives). Keys are recorded per caller: one API key's
    Idempotency-Key never replays, nor collides with, another key's request."""
    global _database, _caller
    _database = provider
    if caller is not None:
        _caller = caller


def _scoped(key: str) -> str:
    caller = _caller()
    return f"{len(caller)}:{caller}:{key}"


def answer(request: Request, view: Callable[[], Response]) -> Response:
    """Run `view` under the idempotency rule when the request is a POST with an Idempotency-Key."""
    raw_key = request.headers.get("idempotency-key")
    if request.method != "POST" or raw_key is None or _database is None:
        return view()
    key = raw_key.strip()
    if not key or len(key) > MAX_KEY_CHARS or not key.isprintable():
        raise InvalidInput(f"Idempotency-Key: 1 to {MAX_KEY_CHARS} printable characters",
                           field="Idempotency-Key")
    key = _scoped(key)
    path = (request.context or {}).get("path") or request.path
    print_ = fingerprint(request.method, path, request.raw_body)
    db = _database()
    replay = _replay(db, key, print_)
    if replay is not None:
        return replay
    scope = RequestTransaction(db, on_open=lambda conn: reserve(conn, key, print_))
    try:
        with scope.active():
            response = view()
        if response.status_code >= 500:
            scope.rollback()
            return response
        body, content_type = _serialise(response)
        store_reply(scope.open(), key, response.status_code, body, content_type)
        scope.commit()
        return response
    except Recorded:
        scope.rollback()
        return _replay(db, key, print_) or _in_progress()
    except BaseException as exc:
        scope.rollback(exc)
        raise


def _serialise(response: Response) -> tuple[str, str]:
    headers = {k.lower(): v for k, v in (response.headers or {}).items()}
    content_type = str(headers.get("content-type") or "application/json")
    body = response.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    return (body if isinstance(body, str) else json.dumps(body)), content_type


def _replay(db: Any, key: str, print_: str) -> Response | None:
    row = recorded_reply(db, key)
    if row is None:
        return None
    if row["fingerprint"] != print_:
        raise KeyReusedError()
    body: Any = row["body"]
    if row["content_type"].startswith("application/json"):
        body = json.loads(body)
    return Response(body=body, status_code=row["status"],
                    headers={"Content-Type": row["content_type"], "Idempotent-Replayed": "true"})


class KeyReusedError(DomainError):
    status = 422
    code = "idempotency_key_reused"

    def __init__(self) -> None:
        super().__init__("this Idempotency-Key was already used for a different request",
                         field="Idempotency-Key")


def _in_progress() -> Response:
    return Response(body={"error": "conflict", "message": "a request with this Idempotency-Key is in "
                          "progress; retry shortly"}, status_code=409,
                    headers={"Content-Type": "application/json", "Retry-After": "1"})
