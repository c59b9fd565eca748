"""What the SSH services need: two repositories in a unit of work, a way to reach a machine's
agent, and a way to show a run's output in the chat that asked for it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.ssh.domain.ssh_model import SshRun, SshTarget


class SshTargetRepository(Protocol):
    def upsert(self, target: SshTarget) -> SshTarget: ...

    def get(self, name: str) -> SshTarget | None: ...

    def reaching(self, machine_id: str) -> list[SshTarget]:
        """Targets that reach a registered machine (for `/exec @machine`)."""
        ...

    def listing(self) -> list[SshTarget]: ...

    def delete(self, name: str) -> bool: ...


class SshRunRepository(Protocol):
    def add(self, run: SshRun) -> SshRun: ...

    def get(self, run_id: str, *, for_update: bool = False) -> SshRun | None: ...

    def update(self, run_id: str, **fields: Any) -> SshRun:
        """Set fields (status, exit_code, error, output_seq, started_at/finished_at via 'now')."""
        ...

    def recent(self, limit: int) -> list[SshRun]: ...


class SshUnitOfWork(UnitOfWork, Protocol):
    targets: SshTargetRepository
    runs: SshRunRepository


SshUnitOfWorkFactory = Callable[[], SshUnitOfWork]
SendToMachine = Callable[[str, dict[str, Any]], None]  # (machine id, message body)


class RunOutput(Protocol):
    """The chat (and topic) that asked for a run; nothing happens without one."""

    def post(self, stream: str, chat_id: int, topic_id: int, texts: Sequence[str]) -> None: ...


class NullRunOutput:
    def post(self, stream: str, chat_id: int, topic_id: int, texts: Sequence[str]) -> None:
        return None
