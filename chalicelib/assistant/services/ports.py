"""What the assistant needs: its repository in a unit of work, the memory core, and views of
the rest of Itachi (tasks, machines, repos, session briefings) as plain callables."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from chalicelib.assistant.domain.offers import Offer
from chalicelib.kernel.unit_of_work import UnitOfWork
from chalicelib.memory.domain.memory_model import Memory, MemoryDraft, StoreResult


class AssistantRepository(Protocol):
    def add_message(self, chat_id: int, speaker: str, text: str) -> int: ...

    def unread(self, chat_id: int, limit: int) -> list[tuple[int, str]]: ...

    def mark_read(self, chat_id: int, through: int) -> None: ...

    def add_offer(self, offer: Offer) -> Offer: ...

    def offer(self, offer_id: str) -> Offer | None: ...

    def decide(self, offer_id: str, status: str) -> bool: ...

    def set_task(self, offer_id: str, task_id: str) -> None: ...

    def reopen(self, offer_id: str) -> None: ...

    def deploy(self, project: str) -> tuple[str, str | None] | None: ...

    def set_deploy(self, project: str, command: str, machine: str | None) -> None: ...


class AssistantUnitOfWork(UnitOfWork, Protocol):
    assistant: AssistantRepository


class Memories(Protocol):
    def remember(self, draft: MemoryDraft, *, near_dedup: bool = True) -> StoreResult: ...

    def recent(
        self,
        project: str | None = None,
        *,
        limit: int = 10,
        category: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> list[Memory]: ...


AssistantUnits = Callable[[], AssistantUnitOfWork]
Redact = Callable[[str], str]
ListMachines = Callable[[], list[dict[str, Any]]]
MachineFor = Callable[[str], str | None]  # project -> the machine its task would go to
ListRepos = Callable[[], list[dict[str, Any]]]
Briefing = Callable[[str], dict[str, Any]]
