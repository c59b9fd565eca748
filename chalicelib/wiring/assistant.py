"""The Telegram assistant (docs/telegram.md, "Assistant"): what it learns about its user, the context
providers around the conversation, natural-language task offers and each project's deploy command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import assistant as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.assistant")


def _task_offers(c: Container) -> kit.TaskOffers:
    def create_task(offer: kit.Offer, chat_id: int, topic_id: int) -> object:
        new = kit.NewTask(offer.project, offer.prompt, target_machine=offer.machine, telegram_chat_id=chat_id,
                          telegram_topic_id=topic_id or None, idempotency_key=f"offer:{offer.id}")
        if offer.user_id is None:
            return c.tasks.create(new)
        return c.task_budgets.create_task(offer.user_id, new)  # under its asker's cost caps

    machines = c.machine_registry
    return kit.TaskOffers(c.assistant_units, c.llm, machines.list_machines, machines.machine_for,
                          c.codeintel.github_sync.repos, create_task)


class AssistantWiring(CoreWiring):
    assistant_units: kit.AssistantUnits = provide(lambda c: kit.assistant_units(c.db))
    user_model: kit.UserModel = provide(
        lambda c: kit.UserModel(c.assistant_units, c.memory, c.llm, kit.redact))
    assistant_context: kit.AssistantContext = provide(lambda c: kit.AssistantContext(
        c.user_model, c.memory, c.sessions.briefing, c.machine_registry.list_machines,
        c.codeintel.github_sync.repos))
    task_offers: kit.TaskOffers = provide(_task_offers)
    # /deploy: each project's deploy command, offered as a task like a natural-language request
    project_deploys: kit.ProjectDeploys = provide(
        lambda c: kit.ProjectDeploys(c.assistant_units, c.machine_registry.machine_for, kit.redact))
