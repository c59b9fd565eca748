"""`/logs [task id | function]`: the last lines of the logs, secrets redacted, short enough for a chat."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from chalicelib.contracts.log_lines import LogLine, LogQuery
from chalicelib.kernel.redaction import redact

_TASK_REF = re.compile(r"^[0-9a-f-]{6,36}$")
LAST_LINES = 20


class LogSource(Protocol):
    def search(self, query: LogQuery) -> list[LogLine]: ...


class LogTail:
    def __init__(self, source: Callable[[], LogSource], *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._source, self._clock = source, clock

    def last(self, ref: str | None = None, lines: int = LAST_LINES) -> str:
        task = ref.lower() if ref and _TASK_REF.match(ref.lower()) else None
        function = ref if ref and task is None else None
        since = self._clock() - (timedelta(days=1) if task else timedelta(hours=1))
        found = self._source().search(LogQuery(since, task=task, function=function, limit=lines))
        if not found:
            what = f" about task {task}" if task else f" from {function}" if function else ""
            return f"No log lines{what} in the last {'24 hours' if task else 'hour'}."
        return "\n".join(redact(line.render()) for line in found)
