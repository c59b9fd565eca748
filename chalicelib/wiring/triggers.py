"""Tasks started by GitHub deliveries (docs/tasks.md, "GitHub-triggered tasks")."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.triggers.services.github_triggers import GitHubTriggers


class TriggersWiring(CoreWiring):
    @cached_property
    def github_triggers(self) -> GitHubTriggers:
        from chalicelib.codeintel.adapters.github_client import GitHubClient
        from chalicelib.kernel.idempotency import PostgresClaims
        from chalicelib.kernel.unit_of_work import postgres_units
        from chalicelib.telegram.services.task_topics import TaskTopics
        from chalicelib.triggers.services.github_triggers import GitHubTriggers

        s = self.settings
        commenter = GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
        topics = TaskTopics(self.telegram_gateway, self.telegram_topics, s.telegram_chat_id) \
            if self.telegram_enabled and s.telegram_chat_id else None
        units = postgres_units(self.db, claims=PostgresClaims)
        return GitHubTriggers(units, self.tasks.create, commenter, topics,
                              label=s.github_task_label, mention=s.github_task_mention,
                              console_url=s.public_url)
