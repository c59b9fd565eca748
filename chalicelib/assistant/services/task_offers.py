"""Natural-language actions: a message that asks for work becomes an offer (project, machine,
prompt) the user confirms with Create or drops with Cancel. Nothing is created before the tap,
and one offer creates at most one task however often Create is pressed (the task's idempotency
key is the offer's id, and the offer moves from 'offered' once).

The model reads the request when configured (purpose `assistant_intent`); `domain/task_intent`
reads it otherwise. Only messages that look like a request reach either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from chalicelib.assistant.domain import task_intent
from chalicelib.assistant.domain.offers import Offer
from chalicelib.assistant.services.ports import AssistantUnits, ListMachines, ListRepos, MachineFor
from chalicelib.kernel.errors import or_not_found
from chalicelib.llm.services.ports import LanguageModel

PURPOSE = "assistant_intent"
SYSTEM = """Decide whether the user's message asks for coding work to be done in one of their
projects. If it does, answer is_task true, the project (one of the known projects, as written
there) and a clear imperative prompt for a coding agent. Otherwise is_task false."""
CreateTask = Callable[[Offer, int, int], Any]  # (offer, chat id, topic id) -> the task (with .id)


class TaskOffers:
    def __init__(
        self,
        units: AssistantUnits,
        llm: LanguageModel,
        machines: ListMachines,
        machine_for: MachineFor,
        repos: ListRepos,
        create_task: CreateTask,
    ) -> None:
        self._units, self._llm, self._machines, self._repos = units, llm, machines, repos
        self._machine_for, self._create_task = machine_for, create_task

    def offer_for(
        self, message: str, *, chat_id: int, topic_id: int, user_id: int | None, project_here: str | None
    ) -> Offer | None:
        if not task_intent.looks_like_request(message):
            return None
        machines = self._machines()
        known = self._known_projects(machines)
        intent = None
        if self._llm.enabled:
            answer = self._llm.complete_json(
                PURPOSE,
                SYSTEM,
                f"Known projects: {', '.join(known) or 'none'}\nMessage: {message}",
                task_intent.INTENT_SCHEMA,
                max_tokens=300,
            )
            if answer is not None:
                intent = task_intent.intent_from_answer(answer, known, project_here)
                if intent is None:
                    return None  # the model read it as conversation
        intent = intent or task_intent.read_intent(message, known, project_here)
        if intent is None:
            return None
        offer = Offer(
            chat_id, topic_id, user_id, intent.project, self._machine_for(intent.project), intent.prompt
        )
        with self._units() as uow:
            stored = uow.assistant.add_offer(offer)
            uow.commit()
        return stored

    def describe(self, offer: Offer) -> str:
        return task_intent.offer_text(
            offer.project, offer.machine, offer.prompt, self.default_branch(offer.project)
        )

    def get(self, offer_id: str) -> Offer:
        with self._units() as uow:
            offer = uow.assistant.offer(offer_id)
        return or_not_found(offer, "no such offer")

    def cancel(self, offer_id: str) -> tuple[Offer, bool]:
        with self._units() as uow:
            changed = uow.assistant.decide(offer_id, "cancelled")
            uow.commit()
        return self.get(offer_id), changed

    def accept(self, offer_id: str) -> bool:
        """Claim the offer for creation; False when it was created or cancelled before."""
        with self._units() as uow:
            won = uow.assistant.decide(offer_id, "created")
            uow.commit()
        return won

    def create(self, offer_id: str, chat_id: int, topic_id: int) -> Offer:
        """Create the task of an accepted offer (idempotent on the offer); reopen it if that fails."""
        offer = self.get(offer_id)
        try:
            task = self._create_task(offer, chat_id, topic_id)
        except Exception:
            with self._units() as uow:
                uow.assistant.reopen(offer_id)
                uow.commit()
            raise
        with self._units() as uow:
            uow.assistant.set_task(offer_id, str(task.id))
            uow.commit()
        return replace(offer, status="created", task_id=str(task.id))

    def default_branch(self, project: str) -> str | None:
        wanted = project.lower().split("github.com/")[-1].removesuffix(".git")
        for repo in self._repos():
            if wanted in (repo["full_name"].lower(), repo["name"].lower()):
                return str(repo["default_branch"])
        return None

    def _known_projects(self, machines: list[dict[str, Any]]) -> list[str]:
        """Registered repositories (named as the hooks name a clone of them) and machines' projects."""
        names = {f"github.com/{r['full_name']}" for r in self._repos()}
        for m in machines:
            names.update(m["projects"])
        return sorted(names)

