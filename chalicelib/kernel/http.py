"""HTTP edge helpers: parse and validate requests with pydantic, map domain errors to responses.

Routes stay a few lines: parse a typed input, call one service, return `ok(...)`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

from chalice import Blueprint, Response
from chalice.app import Request
from pydantic import BaseModel, ConfigDict, ValidationError

from chalicelib.kernel.errors import DomainError, InvalidInput
from chalicelib.kernel.logging import log_failure, sanitized
from chalicelib.kernel.wire import NUL, check_storable

M = TypeVar("M", bound=BaseModel)
S = TypeVar("S")


class WireModel(BaseModel):
    """Base of request models: validators are built on first use, not at import (Lambda cold start).

    Numeric fields use the bounded types of `chalicelib.kernel.wire`; captured text its
    `CapturedText` / `CapturedJson` (see there for the NUL rule every request follows).
    """

    model_config = ConfigDict(defer_build=True)


F = TypeVar("F", bound=Callable[..., Any])


RETRY_AFTER_S = 2


def error_response(status: int, code: str, message: str, field: str | None = None) -> Response:
    body: dict[str, Any] = {"error": code, "message": message}
    if field:
        body["field"] = field
    headers: dict[str, str | list[str]] = {"Content-Type": "application/json"}
    if status == 503:
        headers["Retry-After"] = str(RETRY_AFTER_S)
    return Response(body=body, status_code=status, headers=headers)


def ok(body: Any, status: int = 200) -> Response:
    return Response(body=body, status_code=status, headers={"Content-Type": "application/json"})


def _describe(error: ValidationError) -> tuple[str, str | None]:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first.get("loc", ()) if part != "__root__") or None
    message = first.get("msg", "invalid value")
    if first.get("type") == "json_invalid":
        return "request body is not valid JSON", None
    return (f"{field}: {message}" if field else message), field


def _validated(validate: Callable[[], M]) -> M:
    """Run a pydantic validation; raise InvalidInput naming the bad field, or refuse unstorable text."""
    try:
        parsed = validate()
    except ValidationError as exc:
        message, field = _describe(exc)
        raise InvalidInput(message, field=field) from None
    check_storable(parsed)
    return parsed


def parse_body(request: Request, model: type[M]) -> M:
    """Validate the JSON body against `model`; raise InvalidInput naming the bad field."""
    raw = request.raw_body
    if not raw:
        raise InvalidInput("a JSON request body is required")
    return _validated(lambda: model.model_validate_json(raw))


def parse_query(request: Request, model: type[M]) -> M:
    """Validate query-string parameters against `model`."""
    return validate_input(model, dict(request.query_params or {}))


def validate_input(model: type[M], data: dict[str, Any]) -> M:
    """Validate already-decoded input against `model`; raise InvalidInput naming the bad field."""
    return _validated(lambda: model.model_validate(data))


def delivery_key(request: Request) -> str | None:
    """The client's `Idempotency-Key` header: a retried delivery carries the same key."""
    key = (request.headers.get("idempotency-key") or "").strip()
    return key[:200] or None


def _translate_errors(view: F, blueprint: Blueprint) -> F:
    from chalicelib.kernel.idempotent_requests import answer

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            for name, value in kwargs.items():  # path parameters
                if isinstance(value, str) and NUL in value:
                    raise InvalidInput(f"{name}: must not contain the NUL character (\\u0000)", field=name)
            # Every POST follows one idempotency rule (see chalicelib.kernel.idempotency).
            return answer(blueprint.current_request, lambda: view(*args, **kwargs))
        except DomainError as exc:
            return error_response(exc.status, exc.code, exc.message, exc.field)
        except Exception as exc:  # a bug: logged without the values its message may quote, re-raised
            log_failure("unexpected error in a route", exc, view=view.__name__)
            raise sanitized(exc) from None

    return wrapper  # type: ignore[return-value]


class ServedBlueprint(Blueprint, Generic[S]):
    """A Blueprint whose views reach what they use through `services`. Its routes module declares
    that as a class, `Uses`: one annotated attribute per service, named and typed as on `Container`
    (`db: Database`). The entry point that registers it (`app.py`) provides where they come from,
    the container, read lazily: a view builds only the services it touches. Nothing below the entry
    points looks a dependency up, and `tests/unit/test_route_uses.py` checks the container has
    everything each `Uses` names."""

    def __init__(self, import_name: str, uses: type[S]) -> None:
        super().__init__(import_name)
        self.uses = uses
        self._provider: Callable[[], object] | None = None

    def provide(self, provider: Callable[[], object]) -> None:
        self._provider = provider

    @property
    def services(self) -> S:
        if self._provider is None:
            raise RuntimeError(f"{self._import_name}: registered without its services")
        return cast(S, self._provider())


class ApiBlueprint(ServedBlueprint[S]):
    """A Blueprint whose views answer domain errors with their status and a JSON message."""

    def route(self, path: str, **kwargs: Any) -> Callable[[F], F]:
        register = super().route(path, **kwargs)

        def decorator(view: F) -> F:
            register(_translate_errors(view, self))
            return view

        return decorator
