"""The agents unit of work over Postgres: one pooled connection, one transaction."""

from __future__ import annotations

from typing import Any

from chalicelib.agents.adapters.inbox_repository import CronRepository, LessonRepository, MessageRepository
from chalicelib.agents.adapters.run_repository import ProfileRepository, RunRepository
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork


class PostgresAgentsUnitOfWork(PostgresUnitOfWork):
    profiles: ProfileRepository
    runs: RunRepository
    messages: MessageRepository
    cron: CronRepository
    lessons: LessonRepository

    def _bind(self, conn: Any) -> None:
        self.profiles = ProfileRepository(conn)
        self.runs = RunRepository(conn)
        self.messages = MessageRepository(conn)
        self.cron = CronRepository(conn)
        self.lessons = LessonRepository(conn)
