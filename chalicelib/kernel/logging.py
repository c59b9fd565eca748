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
