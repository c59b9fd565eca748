"""The deployed functions' logs from CloudWatch Logs (FilterLogEvents), as `LogLine`s.

Every function writes to `/aws/lambda/<stack>-<function>`; a query reads the groups of the
stack (or the one named by `function`), filtered server-side by the task id or the level when
given, then by `LogQuery` here. Used by `itachi logs` (the user's AWS credentials) and `/logs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chalicelib.contracts.log_lines import LogLine, LogQuery, newest, parse_line
from chalicelib.kernel.lazy import Lazy

MAX_EVENTS = 5000


class CloudWatchLogs:
    def __init__(self, stack: str, *, region: str, endpoint_url: str | None = None,
                 client: Any = None) -> None:
        self._prefix = f"/aws/lambda/{stack}-"
        self._client: Lazy[Any] = Lazy(lambda: client or _client(region, endpoint_url))

    def groups(self, function: str | None = None) -> list[str]:
        prefix = self._prefix + (function or "")
        pages = self._client.get().get_paginator("describe_log_groups").paginate(logGroupNamePrefix=prefix)
        return [g["logGroupName"] for page in pages for g in page.get("logGroups", [])]

    def search(self, query: LogQuery) -> list[LogLine]:
        return newest(self._lines(query), query)

    def _lines(self, query: LogQuery) -> Iterator[LogLine]:
        pattern = f'"{query.task}"' if query.task else ""
        start_ms = int(query.since.timestamp() * 1000)
        seen = 0
        for group in self.groups(query.function):
            function = group.removeprefix(self._prefix)
            pages = self._client.get().get_paginator("filter_log_events").paginate(
                logGroupName=group, startTime=start_ms, filterPattern=pattern)
            for page in pages:
                for event in page.get("events", []):
                    line = parse_line(event["message"], function)
                    if line is not None:
                        seen += 1
                        yield line if "function" in line.raw else _named(line, function)
                if seen >= MAX_EVENTS:
                    return


def _named(line: LogLine, function: str) -> LogLine:
    """A Lambda's lines carry its full name (itachi-prod-api); show the function's own part."""
    return LogLine(line.at, line.level, function, line.message, line.ids, line.raw)


def _client(region: str, endpoint_url: str | None) -> Any:
    import boto3

    return boto3.client("logs", region_name=region, endpoint_url=endpoint_url)
