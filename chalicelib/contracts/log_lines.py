"""One log line as `itachi logs` and `/logs` show it, whichever JSON logger wrote it.

The server's Powertools lines (locally in `$ITACHI_HOME/logs/server.log`, in AWS in each
function's CloudWatch log group) and the agent's lines (`logs/agent.log`) are JSON objects with
a time, a level, a message and ids (`task_id`, `update_id`, `session_id`, `machine_id`,
`correlation_id`). Standard library only: the agent and the CLI import it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
IDS = ("task_id", "update_id", "session_id", "machine_id", "proposal_id", "correlation_id")
_SINCE = re.compile(r"^(\d{1,6})([smhd])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class LogLine:
    at: datetime
    level: str
    function: str  # api, <queue>-consumer, <schedule>-schedule, agent
    message: str
    ids: dict[str, str] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)

    def mentions(self, ref: str) -> bool:
        """Whether the line is about `ref` (a task id or its prefix): in an id, or the message."""
        ref = ref.lower()
        return any(ref in v.lower() for v in self.ids.values()) or ref in self.message.lower()

    def render(self) -> str:
        ids = " ".join(f"{k}={v}" for k, v in self.ids.items())
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.level:<7} {self.function:<20} {self.message}" + (
            f"  {ids}" if ids else "")


@dataclass(frozen=True)
class LogQuery:
    since: datetime
    task: str | None = None
    function: str | None = None
    level: str | None = None  # this level and above
    limit: int = 200

    def accepts(self, line: LogLine) -> bool:
        if line.at < self.since:
            return False
        if self.level and LEVELS.index(_level(line.level)) < LEVELS.index(self.level):
            return False
        if self.function and self.function not in line.function:
            return False
        return not self.task or line.mentions(self.task)


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """`90s`, `15m`, `1h`, `2d` before now."""
    match = _SINCE.match(text.strip())
    if match is None:
        raise ValueError(f"--since takes a number and s, m, h or d (e.g. 1h), not {text!r}")
    return (now or datetime.now(UTC)) - timedelta(seconds=int(match.group(1)) * _UNIT[match.group(2)])


def parse_line(text: str, default_function: str) -> LogLine | None:
    """A JSON log line (Powertools' or the agent's); None for anything else."""
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    if not isinstance(raw, dict) or "message" not in raw:
        return None
    at = _time(raw.get("timestamp"))
    if at is None:
        return None
    ids = {k: str(raw[k]) for k in IDS if raw.get(k) not in (None, "", "-")}
    function = str(raw.get("function") or raw.get("function_name") or default_function)
    return LogLine(at, _level(str(raw.get("level", "INFO"))), function, str(raw["message"]), ids, raw)


def newest(lines: Iterable[LogLine], query: LogQuery) -> list[LogLine]:
    """The query's lines in time order, the last `limit` of them."""
    chosen = sorted((line for line in lines if query.accepts(line)), key=lambda line: line.at)
    return chosen[-query.limit:]


def _level(text: str) -> str:
    upper = text.upper()
    return "WARNING" if upper == "WARN" else upper if upper in LEVELS else "INFO"


def _time(value: Any) -> datetime | None:
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value / (1000 if value > 1e11 else 1), UTC)
    if not isinstance(value, str):
        return None
    text = value.replace(",", ".").replace(" ", "T", 1)
    if text.endswith("+0000"):
        text = text[:-5] + "+00:00"
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


class JsonLineFormatter(logging.Formatter):
    """A `logging.Formatter`-compatible JSON line (the agent's logs): time, level, message, ids."""

    def __init__(self, function: str, **fixed: str) -> None:
        super().__init__()
        self._function, self._fixed = function, fixed

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {"timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(),
                                "level": record.levelname, "function": self._function,
                                "message": record.getMessage(), **self._fixed}
        for key in IDS:
            value = getattr(record, key, None)
            if value:
                body[key] = str(value)
        if record.exc_info:
            body["exception_name"] = record.exc_info[0].__name__ if record.exc_info[0] else None
        return json.dumps(body)
