"""Structured JSON logs (Powertools Logger). Log ids, never payloads, prompts, memories or keys."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from aws_lambda_powertools import Logger


@cache
def get_logger() -> Logger:
    return Logger(service="itachi")


@contextmanager
def correlation_id(value: str) -> Iterator[None]:
    """Tag this thread's logs with `correlation_id` (a task, update, session or stream id) meanwhile.

    Thread-safe: it overrides the invocation's id (set by `functions/lambda_entry.py`) only in
    the thread doing this record's work, so parallel records keep their own.
    """
    logger = get_logger()
    previous = logger.thread_safe_get_current_keys().get("correlation_id")
    logger.thread_safe_append_keys(correlation_id=value)
    try:
        yield
    finally:
        if previous is None:
            logger.thread_safe_remove_keys(["correlation_id"])
        else:
            logger.thread_safe_append_keys(correlation_id=previous)


class InternalError(Exception):
    """What leaves a boundary instead of an unexpected error: its type only, never its message."""


def log_failure(message: str, exc: BaseException, **ids: object) -> None:
    """Log an unexpected error by type, SQLSTATE and the frames it went through, never its text:
    a database error's message and detail quote the values it refused (a password, a prompt)."""
    import traceback

    frames = [f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}"
              for f in traceback.extract_tb(exc.__traceback__)][-12:]
    get_logger().error(message, extra={"error_type": type(exc).__name__,
                                       "sqlstate": getattr(exc, "sqlstate", None), "frames": frames, **ids})


def sanitized(exc: BaseException) -> InternalError:
    """The exception to re-raise in place of `exc` once it is logged (`raise sanitized(exc) from None`)."""
    return InternalError(f"{type(exc).__name__} (details in the log by type and frames only)")
