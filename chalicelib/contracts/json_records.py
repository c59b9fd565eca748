"""Frozen records and their JSON form: times as ISO 8601 text, tuples as lists. Stdlib only."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value


class JsonRecord:
    """A dataclass whose JSON form is every field, made `jsonable`."""

    def to_json(self) -> dict[str, Any]:
        return jsonable(asdict(self))  # type: ignore[call-overload, no-any-return]
