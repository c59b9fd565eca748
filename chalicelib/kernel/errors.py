"""Domain errors: the one place where failure kinds are named.

Entry points translate them (HTTP status in `chalicelib/http.py`, Telegram replies in the bot).
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class DomainError(Exception):
    """Base class of every error the product expects and reports to a caller.

    A subclass names its HTTP status and error code in its bases:
    `class NotFound(DomainError, status=404, code="not_found")`.
    """

    status = 400
    code = "bad_request"

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None) -> None:
        super().__init_subclass__()
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(DomainError, status=400, code="invalid_input"):
    """The input is malformed or out of range."""


class Unauthorized(DomainError, status=401, code="unauthorized"):
    """The request carries no valid key."""


class Forbidden(DomainError, status=403, code="forbidden"):
    """The key is valid but may not do this (its kind, machine, projects or read-only scope)."""


class NotFound(DomainError, status=404, code="not_found"):
    """Nothing of that kind has that id."""


class Conflict(DomainError, status=409, code="conflict"):
    """The current state refuses the change."""


class PayloadTooLarge(DomainError, status=413, code="payload_too_large"):
    """The body or a field is over its size limit."""


class Unavailable(DomainError, status=503, code="unavailable"):
    """A dependency is down or not configured; retrying later may work."""


class ConfigurationError(Exception):
    """The deployment is misconfigured (e.g. embedding dimension mismatch). Fatal at startup."""


def or_not_found(value: T | None, message: str, *, field: str | None = None) -> T:
    """`value` itself, or NotFound(message) when there is none."""
    if value is None:
        raise NotFound(message, field=field)
    return value
