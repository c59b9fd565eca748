"""The learning loop's Postgres unit of work: its repositories, the memory core's repository and the
idempotency claims, all bound to one transaction.

The memory repository is handed in (`bind_memories`, by the composition root): this package
knows the memory core's port, never its adapters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork
from chalicelib.learning.adapters.learned_memory_repository import PostgresLearnedMemories
from chalicelib.learning.adapters.lesson_repository import PostgresLessonBook, PostgresSessionExtractions
from chalicelib.memory.services.ports import MemoryRepository

BindMemories = Callable[[Any], MemoryRepository]


class PostgresLearningUnitOfWork(PostgresUnitOfWork):
    memories: MemoryRepository
    learned: PostgresLearnedMemories
    lessons: PostgresLessonBook
    extractions: PostgresSessionExtractions
    claims: PostgresClaims

    def __init__(self, db: Any, bind_memories: BindMemories) -> None:
        super().__init__(db)
        self._bind_memories = bind_memories

    def _bind(self, conn: Any) -> None:
        self.memories = self._bind_memories(conn)
        self.learned = PostgresLearnedMemories(conn)
        self.lessons = PostgresLessonBook(conn)
        self.extractions = PostgresSessionExtractions(conn)
        self.claims = PostgresClaims(conn)


def learning_units(db: Any, bind_memories: BindMemories) -> Callable[[], PostgresLearningUnitOfWork]:
    return lambda: PostgresLearningUnitOfWork(db, bind_memories)
