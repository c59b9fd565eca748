"""The review queue: what agents and keys stored untrusted, waiting for a person to keep or drop it.

Untrusted memories (quarantined: `memory.domain.provenance`) and proposed rules (a rule sent with
a machine or client key is one) wait here until a person decides, in the console or from the
Telegram digest:

- **keep**: the memory becomes trusted (injected, a live rule), with `promoted_by` and
  `metadata.reviewed_by` / `reviewed_at` naming the person (`console:<key name>`,
  `telegram:<user id>`); with new text it is edited first (redacted, re-embedded);
- **drop**: the memory moves to the archive phase (its original kept in the archive), never
  deleted: it leaves search and stays readable by id.

A memory is decided once: a second decision is a Conflict. The digest (`announce`) hands each
waiting memory to the chat once (`metadata.review_announced_at`), in the transaction that marks
it, so a failed send leaves it for the next run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound
from chalicelib.memory.domain.memory_model import Memory
from chalicelib.memory.services.ports import MemoryUnitOfWork

MAX_TEXT_CHARS = 20_000


class ReviewRepository(Protocol):
    def waiting(self, project: str | None, limit: int, *, unannounced: bool = False) -> list[Memory]: ...

    def count_waiting(self) -> int: ...

    def mark_announced(self, memory_ids: Sequence[str]) -> None: ...

    def keep(self, memory_id: str, by: str) -> bool: ...

    def drop(self, memory_id: str, by: str) -> bool: ...


class ReviewUnitOfWork(MemoryUnitOfWork, Protocol):
    @property
    def review(self) -> ReviewRepository: ...


class ContentEditor(Protocol):
    def update_content(self, memory_id: str, content: str, summary: str | None = None) -> Memory: ...


def waiting_review(memory: Memory) -> bool:
    return not memory.trusted and memory.superseded_by is None and memory.phase < 3 \
        and "reviewed_by" not in memory.metadata


class MemoryReview:
    def __init__(self, units: Callable[[], ReviewUnitOfWork], editor: ContentEditor) -> None:
        self._units = units
        self._editor = editor

    def waiting(self, project: str | None = None, limit: int = 100) -> list[Memory]:
        """Memories waiting for a person, oldest first."""
        with self._units() as uow:
            return uow.review.waiting(project, limit)

    def count(self) -> int:
        with self._units() as uow:
            return uow.review.count_waiting()

    def announce(self, send: Callable[[list[Memory]], object], batch: int = 10) -> int:
        """Hand the next `batch` memories not yet announced to `send`, marked announced once it
        returns (one transaction: a send that raises leaves them for the next run)."""
        with self._units() as uow:
            items = uow.review.waiting(None, batch, unannounced=True)
            if not items:
                return 0
            send(items)
            uow.review.mark_announced([m.id for m in items])
            uow.commit()
        return len(items)

    def keep(self, memory_id: str, by: str, content: str | None = None) -> Memory:
        """Trust a waiting memory (after replacing its text with `content`, if given)."""
        current = self.pending(memory_id)
        if content is not None:
            text = content.strip()
            if not text or len(text) > MAX_TEXT_CHARS or "\x00" in text:
                raise InvalidInput(f"content: 1 to {MAX_TEXT_CHARS} characters, no NUL", field="content")
            if text != current.content:
                self._editor.update_content(memory_id, text)
        return self._decide(memory_id, by, keep=True)

    def drop(self, memory_id: str, by: str) -> Memory:
        """Archive a waiting memory: out of search, readable by id, never deleted."""
        self.pending(memory_id)
        return self._decide(memory_id, by, keep=False)

    def pending(self, memory_id: str) -> Memory:
        """The memory if it waits for review; NotFound or Conflict otherwise."""
        with self._units() as uow:
            memory = uow.memories.get(memory_id)
        if memory is None:
            raise NotFound(f"no memory {memory_id}", field="id")
        if not waiting_review(memory):
            raise Conflict(f"memory {memory_id} is not waiting for review (already decided)", field="id")
        return memory

    def _decide(self, memory_id: str, by: str, *, keep: bool) -> Memory:
        with self._units() as uow:
            done = uow.review.keep(memory_id, by) if keep else uow.review.drop(memory_id, by)
            if not done:
                raise Conflict(f"memory {memory_id} is not waiting for review (already decided)", field="id")
            memory = uow.memories.get(memory_id)
            uow.commit()
        assert memory is not None
        return memory
