"""Embedded Postgres 16 + pgvector from the `pgserver` package, data under $ITACHI_HOME/pgdata."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any


def start_postgres(home: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded server; return (handle, connection URL).

    The server stops when the last holding process exits normally (`handle.cleanup()`).
    """
    os.environ.setdefault("XDG_RUNTIME_DIR", str(home / "run"))
    (home / "run").mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    server = pgserver.get_server(home / "pgdata", cleanup_mode="stop")
    return server, server.get_uri()
