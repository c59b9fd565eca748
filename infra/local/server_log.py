"""`itachi up`'s server lines also go to `$ITACHI_HOME/logs/server.log` (what `itachi logs` reads).

Each line names its part as a deployed function would: the API's request threads `api`, the
SQS dispatcher's `<queue>-consumer`, the scheduler's `schedule`.
"""

from __future__ import annotations

import logging
import threading
from logging.handlers import RotatingFileHandler
from pathlib import Path

from chalicelib.kernel.logging import get_logger

MAX_BYTES, BACKUPS = 20 * 1024 * 1024, 3


class _Function(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "function"):
            name = threading.current_thread().name
            record.function = (f"{name.removeprefix('sqs-')}-consumer" if name.startswith("sqs-")
                               else "schedule" if name == "scheduler" else "api")
        return True


def log_server_to(logs_dir: Path) -> logging.Handler:
    """Add the file handler (returned, so the stack can remove it when it stops)."""
    logs_dir.mkdir(parents=True, exist_ok=True)
    logger = get_logger()
    handler = RotatingFileHandler(logs_dir / "server.log", maxBytes=MAX_BYTES, backupCount=BACKUPS)
    handler.setFormatter(logger.registered_formatter)
    handler.addFilter(_Function())
    logging.getLogger(logger.service).addHandler(handler)
    return handler


def stop_logging(handler: logging.Handler) -> None:
    logging.getLogger(get_logger().service).removeHandler(handler)
    handler.close()
