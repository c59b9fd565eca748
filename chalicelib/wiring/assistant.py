"""The Telegram assistant: its user model, the context around a conversation, task offers."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.assistant.domain.offers import Offer
    from chalicelib.assistant.services.assistant_context import AssistantContext
    from chalicelib.assistant.services.ports import AssistantUnits
    from chalicelib.assistant.services.project_deploys import ProjectDeploys
    from chalicelib.assistant.services.task_offers import TaskOffers
    from chalicelib.assistant.services.user_model import UserModel


class AssistantWiring(CoreWiring):
    # The Telegram assistant (docs/telegram.md, "Assistant"): what it learns about its user, the
    # context providers around the conversation, and natural-language task offers.
    @cached_property
    def assistant_units(self) -> AssistantUnits:
        from chalicelib.assistant.adapters.assistant_repository import assistant_units

        return assistant_units(self.db)

    @cached_property
    def user_model(self) -> UserModel:
        from chalicelib.assistant.services.user_model import UserModel
        from chalicelib.kernel.redaction import redact

        return UserModel(self.assistant_units, self.memory, self.llm, redact)

    @cached_property
    def assistant_context(self) -> AssistantContext:
        from chalicelib.assistant.services.assistant_context import AssistantContext

        return AssistantContext(self.user_model, self.memory, self.sessions.briefing,
                                self.machine_registry.list_machines, self.codeintel.github_sync.repos)

    @cached_property
    def task_offers(self) -> TaskOffers:
        from chalicelib.assistant.services.task_offers import TaskOffers
        from chalicelib.tasks.domain.task_model import NewTask

        def create_task(offer: Offer, chat_id: int, topic_id: int) -> object:
            new = NewTask(offer.project, offer.prompt, target_machine=offer.machine, telegram_chat_id=chat_id,
                          telegram_topic_id=topic_id or None, idempotency_key=f"offer:{offer.id}")
            if offer.user_id is None:
                return self.tasks.create(new)
            return self.task_budgets.create_task(offer.user_id, new)  # under its asker's cost caps

        return TaskOffers(self.assistant_units, self.llm, self.machine_registry.list_machines,
                          self.machine_registry.machine_for, self.codeintel.github_sync.repos, create_task)

    @cached_property
    def project_deploys(self) -> ProjectDeploys:
        """/deploy: each project's deploy command, offered as a task like a natural-language request."""
        from chalicelib.assistant.services.project_deploys import ProjectDeploys
        from chalicelib.kernel.redaction import redact

        return ProjectDeploys(self.assistant_units, self.machine_registry.machine_for, redact)
