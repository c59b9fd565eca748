"""Domain errors: the one place where failure kinds are named.

Entry points translate them (HTTP status in `chalicelib/http.py`, Telegram replies in the bot).
"""

from __future__ import annotations


class DomainError(Exception):
    """Base class of every error the product expects and reports to a caller."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(DomainError):
    status = 400
    code = "invalid_input"


class Unauthorized(DomainError):
    status = 401
    code = "unauthorized"


class Forbidden(DomainError):
    """The key is valid but may not do this (its kind, machine, projects or read-only scope)."""

    status = 403
    code = "forbidden"


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Conflict(DomainError):
    status = 409
    code = "conflict"


class PayloadTooLarge(DomainError):
    status = 413
    code = "payload_too_large"


class Unavailable(DomainError):
    status = 503
    code = "unavailable"


class ConfigurationError(Exception):
    """The deployment is misconfigured (e.g. embedding dimension mismatch). Fatal at startup."""
