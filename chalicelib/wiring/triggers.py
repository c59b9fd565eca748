"""Tasks started by GitHub deliveries (docs/tasks.md, "GitHub-triggered tasks")."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.tasks.services.tasks import TaskService
    from chalicelib.triggers.services.github_triggers import GitHubTriggers


class TriggersWiring(CoreWiring):
    if TYPE_CHECKING:  # built by the other capabilities' wiring
        @property
        def tasks(self) -> TaskService: ...

    @cached_property
    def github_triggers(self) -> GitHubTriggers:
        from chalicelib.codeintel.adapters.github_client import GitHubClient
        from chalicelib.triggers.adapters.triggers_unit_of_work import triggers_units
        from chalicelib.triggers.services.github_triggers import GitHubTriggers

        s = self.settings
        commenter = GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
        return GitHubTriggers(triggers_units(self.db), self.tasks.create, commenter,
                              label=s.github_task_label, mention=s.github_task_mention,
                              console_url=s.public_url)
