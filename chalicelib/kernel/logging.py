"""Structured JSON logs (Powertools Logger). Log ids, never payloads, prompts, memories or keys."""

from __future__ import annotations

from functools import cache

from aws_lambda_powertools import Logger


@cache
def get_logger() -> Logger:
    return Logger(service="itachi")
