"""The database's connections, shared out: the API's reserved concurrency follows `max_connections`.

Every Lambda container holds at most `ITACHI_DB_POOL_MAX` connections. The consumers run at most
`MAX_CONSUMER_CONCURRENCY` batches per queue and each schedule one run at a time, so what is left
of `max_connections` after those, the superuser's reserved slots and the migrations function
(`RESERVED`) is the API's: its reserved concurrency is that remainder over the pool size. With RDS
Proxy the same bound keeps the proxy from queueing clients when statements pin connections.
The template carries one row per allowed `DbMaxConnections` (a CloudFormation mapping), so the
figure cannot drift from the parameter group's setting.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.schedule_table import SCHEDULES

MAX_CONSUMER_CONCURRENCY = 5
RESERVED = 10  # rds_superuser_reserved (2) + superuser_reserved (3) + migrations + an operator's psql
MAX_CONNECTIONS_CHOICES = ["100", "200", "400", "800"]
CONNECTIONS_ALARM_SHARE = 0.8
MAPPING = "ConnectionBudget"


@dataclass(frozen=True)
class Budget:
    max_connections: int
    pool_max: int

    @property
    def background(self) -> int:
        consumers = sum(1 for q in QUEUES if q.consumer) * MAX_CONSUMER_CONCURRENCY
        return (consumers + len(SCHEDULES)) * self.pool_max

    @property
    def api_concurrency(self) -> int:
        left = self.max_connections - RESERVED - self.background
        if left < self.pool_max:
            raise ValueError(f"max_connections={self.max_connections} leaves no connection for the API")
        return left // self.pool_max

    @property
    def alarm_threshold(self) -> int:
        return int(self.max_connections * CONNECTIONS_ALARM_SHARE)


def mapping(pool_max: int) -> dict[str, dict[str, dict[str, int]]]:
    rows = {}
    for choice in MAX_CONNECTIONS_CHOICES:
        budget = Budget(int(choice), pool_max)
        rows[choice] = {"ApiReservedConcurrency": budget.api_concurrency,
                        "ConnectionsAlarm": budget.alarm_threshold}
    return {MAPPING: rows}


def find(field: str) -> dict[str, list[object]]:
    return {"Fn::FindInMap": [MAPPING, {"Ref": "DbMaxConnections"}, field]}
