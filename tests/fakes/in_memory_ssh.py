"""In-memory SSH targets and runs behind the SSH services' ports, for unit tests.

The same contract suite (tests/support/ssh_contract.py) runs on these and on Postgres.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.ssh.domain.ssh_model import SshRun, SshTarget
from chalicelib.ssh.services.ports import SshRunRepository, SshTargetRepository


class InMemorySshTargets:
    def __init__(self) -> None:
        self.rows: dict[str, SshTarget] = {}

    def upsert(self, target: SshTarget) -> SshTarget:
        self.rows[target.name] = replace(target, updated_at=datetime.now(UTC))
        return self.rows[target.name]

    def get(self, name: str) -> SshTarget | None:
        return self.rows.get(name)

    def reaching(self, machine_id: str) -> list[SshTarget]:
        found = [t for t in self.rows.values() if t.reaches_machine == machine_id]
        return sorted(found, key=lambda t: t.name)

    def listing(self) -> list[SshTarget]:
        return [self.rows[k] for k in sorted(self.rows)]

    def delete(self, name: str) -> bool:
        return self.rows.pop(name, None) is not None


class InMemorySshRuns:
    def __init__(self) -> None:
        self.rows: dict[str, SshRun] = {}

    def add(self, run: SshRun) -> SshRun:
        self.rows[run.id] = replace(run, created_at=datetime.now(UTC))
        return self.rows[run.id]

    def get(self, run_id: str, *, for_update: bool = False) -> SshRun | None:
        return self.rows.get(run_id)

    def update(self, run_id: str, **fields: Any) -> SshRun:
        now = datetime.now(UTC)
        values: dict[str, Any] = {k: now if v == "now" else v for k, v in fields.items()}
        self.rows[run_id] = replace(self.rows[run_id], **values)
        return self.rows[run_id]

    def recent(self, limit: int) -> list[SshRun]:
        return sorted(self.rows.values(), key=lambda r: r.created_at or datetime.min, reverse=True)[:limit]


class InMemorySshUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, targets: InMemorySshTargets, runs: InMemorySshRuns) -> None:
        super().__init__()
        self.targets: SshTargetRepository = targets
        self.runs: SshRunRepository = runs


class RecordingOutput:
    """The chat side of runs: what each stream received, in order."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, int, int, list[str]]] = []

    def post(self, stream: str, chat_id: int, topic_id: int, texts: Sequence[str]) -> None:
        self.posts.append((stream, chat_id, topic_id, list(texts)))

    def texts(self, stream: str) -> list[str]:
        return [t for s, _, _, texts in self.posts if s == stream for t in texts]
