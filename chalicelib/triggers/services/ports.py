"""What GitHub-triggered tasks need: their delivery records, a way to comment on an issue."""

from __future__ import annotations

from typing import Protocol

from chalicelib.kernel.unit_of_work import Claims, UnitOfWork


class TriggersUnitOfWork(UnitOfWork, Protocol):
    claims: Claims


class IssueCommenter(Protocol):
    def comment_on_issue(self, repository: str, number: int, text: str) -> str:
        """Comment on issue `number` of `owner/name`; return the comment's URL."""
        ...


class TaskTopics(Protocol):
    def open(self, project: str, description: str) -> tuple[int, int] | None:
        """Open a Telegram topic for a new task: (chat id, topic id), or None (no topic)."""
        ...

    def attach(self, task_id: str, project: str, description: str, place: tuple[int, int]) -> str | None:
        """Register the topic opened for `task_id`; return its link, if it has one."""
        ...
