"""An engine's stdout as lines: a reader thread copies the pipe into a queue the runner reads."""

from __future__ import annotations

import queue
import subprocess
import time
from collections.abc import Iterator
from typing import IO

DRAIN_AFTER_EXIT_S = 2.0


def pump(stream: IO[str] | None, lines: queue.Queue[str | None]) -> None:
    """Copy a pipe into a queue, ending with None (a reader thread never blocks the runner)."""
    if stream is not None:
        try:
            for line in stream:
                lines.put(line)
        except (OSError, ValueError):
            pass
    lines.put(None)


def read_lines(proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> Iterator[str]:
    """Yield stdout lines until EOF, or shortly after the engine exits if a stray child holds the pipe."""
    exited_at: float | None = None
    while True:
        try:
            line = lines.get(timeout=0.25)
        except queue.Empty:
            if proc.poll() is not None:
                exited_at = exited_at or time.monotonic()
                if time.monotonic() - exited_at > DRAIN_AFTER_EXIT_S:
                    return
            continue
        if line is None:
            return
        yield line
