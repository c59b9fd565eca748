"""The local log files under `$ITACHI_HOME/logs` read as `LogLine`s (standard library only)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from chalicelib.contracts.log_lines import LogLine, LogQuery, newest, parse_line

# file -> the function its lines come from when they do not say
LOCAL_FILES = {"server.log": "api", "agent.log": "agent"}
TAIL_BYTES = 8 * 1024 * 1024  # the end of each file is read: older lines are in rotated files


class LocalLogFiles:
    def __init__(self, logs_dir: Path) -> None:
        self._dir = logs_dir

    def search(self, query: LogQuery) -> list[LogLine]:
        return newest(self._lines(), query)

    def _lines(self) -> Iterator[LogLine]:
        for name, function in LOCAL_FILES.items():
            path = self._dir / name
            for text in _tail(path):
                line = parse_line(text, function)
                if line is not None:
                    yield line


def _tail(path: Path) -> list[str]:
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - TAIL_BYTES))
            data = f.read()
    except OSError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    return lines[1:] if len(data) == TAIL_BYTES and lines else lines
