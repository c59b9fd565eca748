"""Tasks started by GitHub deliveries (docs/tasks.md, "GitHub-triggered tasks")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import triggers as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.triggers")


def _github_triggers(c: Container) -> kit.GitHubTriggers:
    s = c.settings
    commenter = kit.GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
    topics = kit.TaskTopics(c.telegram_gateway, c.telegram_topics, s.telegram_chat_id) \
        if c.telegram_enabled and s.telegram_chat_id else None
    units = kit.postgres_units(c.db, claims=kit.PostgresClaims)
    return kit.GitHubTriggers(units, c.tasks.create, commenter, topics, label=s.github_task_label,
                              mention=s.github_task_mention, console_url=s.public_url)


class TriggersWiring(CoreWiring):
    github_triggers: kit.GitHubTriggers = provide(_github_triggers)
