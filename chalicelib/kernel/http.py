"""HTTP edge helpers: parse and validate requests with pydantic, map domain errors to responses.

Routes stay a few lines: parse a typed input, call one service, return `ok(...)`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from chalice import Blueprint, Response
from chalice.app import Request
from pydantic import BaseModel, ConfigDict, ValidationError

from chalicelib.kernel.errors import DomainError, InvalidInput

M = TypeVar("M", bound=BaseModel)


class WireModel(BaseModel):
    """Base of request models: validators are built on first use, not at import (Lambda cold start)."""

    model_config = ConfigDict(defer_build=True)
F = TypeVar("F", bound=Callable[..., Any])


def error_response(status: int, code: str, message: str, field: str | None = None) -> Response:
    body: dict[str, Any] = {"error": code, "message": message}
    if field:
        body["field"] = field
    return Response(body=body, status_code=status, headers={"Content-Type": "application/json"})


def ok(body: Any, status: int = 200) -> Response:
    return Response(body=body, status_code=status, headers={"Content-Type": "application/json"})


def _describe(error: ValidationError) -> tuple[str, str | None]:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ()) if part != "__root__") or None
    message = first.get("msg", "invalid value")
    if first.get("type") == "json_invalid":
        return "request body is not valid JSON", None
    return (f"{field}: {message}" if field else message), field


def parse_body(request: Request, model: type[M]) -> M:
    """Validate the JSON body against `model`; raise InvalidInput naming the bad field."""
    raw = request.raw_body
    if not raw:
        raise InvalidInput("a JSON request body is required")
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        message, field = _describe(exc)
        raise InvalidInput(message, field=field) from None


def parse_query(request: Request, model: type[M]) -> M:
    """Validate query-string parameters against `model`."""
    return validate_input(model, dict(request.query_params or {}))


def validate_input(model: type[M], data: dict[str, Any]) -> M:
    """Validate already-decoded input against `model`; raise InvalidInput naming the bad field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        message, field = _describe(exc)
        raise InvalidInput(message, field=field) from None


def delivery_key(request: Request) -> str | None:
    """The client's `Idempotency-Key` header: a retried delivery carries the same key."""
    key = (request.headers.get("idempotency-key") or "").strip()
    return key[:200] or None


def _translate_errors(view: F) -> F:
    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return view(*args, **kwargs)
        except DomainError as exc:
            return error_response(exc.status, exc.code, exc.message, exc.field)

    return wrapper  # type: ignore[return-value]


class ApiBlueprint(Blueprint):
    """A Blueprint whose views answer domain errors with their status and a JSON message."""

    def route(self, path: str, **kwargs: Any) -> Callable[[F], F]:
        register = super().route(path, **kwargs)

        def decorator(view: F) -> F:
            register(_translate_errors(view))
            return view

        return decorator
