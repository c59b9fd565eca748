"""The learning loop's Postgres unit of work: its repositories, the memory core's repository and the
idempotency claims, all bound to one transaction.

The memory repository is handed in (`bind_memories`, by the composition root): this package
knows the memory core's port, never its adapters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.learning.adapters.learned_memory_repository import PostgresLearnedMemories
from chalicelib.learning.adapters.lesson_repository import PostgresLessonBook, PostgresSessionExtractions
from chalicelib.learning.services.ports import LearningUnits
from chalicelib.memory.services.ports import MemoryRepository

BindMemories = Callable[[Any], MemoryRepository]


def learning_units(db: Any, bind_memories: BindMemories) -> LearningUnits:
    return postgres_units(db, memories=bind_memories, learned=PostgresLearnedMemories,
                          lessons=PostgresLessonBook, extractions=PostgresSessionExtractions,
                          claims=PostgresClaims)
