"""The composition root: build adapters from Settings and hand back ready services.

Entry points (routes, Lambda handlers, the local stack) call `get_container()`; tests call
`build(settings)` with their own settings. Nothing here does I/O until a service is used.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property

from chalicelib.adapters.database import Database
from chalicelib.adapters.sqs_queues import SqsQueues
from chalicelib.settings import Settings


@dataclass
class Container:
    settings: Settings
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @cached_property
    def db(self) -> Database:
        s = self.settings
        return Database(s.database_url, min_size=s.db_pool_min, max_size=s.db_pool_max)

    @cached_property
    def queues(self) -> SqsQueues:
        s = self.settings
        return SqsQueues(prefix=s.queue_prefix, region=s.aws_region, endpoint_url=s.sqs_endpoint_url)

    def warm_up(self) -> None:
        """Pay one-time costs (pool, models) before the first request; used by long-lived servers."""
        self.db.ping()

    def close(self) -> None:
        if "db" in self.__dict__:
            self.db.close()


def build(settings: Settings | None = None) -> Container:
    return Container(settings or Settings.from_env())


_container: Container | None = None
_container_lock = threading.Lock()


def get_container() -> Container:
    """Return the process-wide container, building it on first use."""
    global _container
    if _container is None:
        with _container_lock:
            if _container is None:
                _container = build()
    return _container


def set_container(container: Container | None) -> None:
    """Install a container (the local stack and tests choose their own settings)."""
    global _container
    with _container_lock:
        _container = container
