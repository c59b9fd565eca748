"""The composition root: build adapters from Settings and hand back ready services.

Entry points (routes, Lambda handlers, the local stack) call `get_container()`; tests call
`build(settings)` with their own settings. Nothing here does I/O until a service is used.
Each capability's adapters and services are declared by its mixin in `chalicelib/wiring/` (one
`provide(...)` line a service, built on first use); the `Container` below composes them and holds the
glue between capabilities: the ports through which tasks reach the learning loop, subagents and
Telegram, and what the bot's handlers use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.agents import AgentWiring
from chalicelib.wiring.assistant import AssistantWiring
from chalicelib.wiring.auth import AuthWiring
from chalicelib.wiring.context import ContextWiring
from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.graph import GraphWiring
from chalicelib.wiring.learning import LearningWiring
from chalicelib.wiring.memory import MemoryWiring
from chalicelib.wiring.namespaces import NamespaceWiring
from chalicelib.wiring.ops import OpsWiring
from chalicelib.wiring.remote import RemoteWiring
from chalicelib.wiring.tasks import TaskWiring
from chalicelib.wiring.telegram import TelegramWiring
from chalicelib.wiring.triggers import TriggersWiring

# Adapters and services are imported when first built (the mixins' kits, the glue below): `import app`
# (a Lambda cold start) then pays only for the routes, and each container builds only what its requests use.
if TYPE_CHECKING:
    from chalicelib.auth.domain.machine_scope import Owned
    from chalicelib.kernel.settings import Settings
    from chalicelib.tasks.services.ports import OutcomeListener, PromptEnricher, TaskEventPublisher
    from chalicelib.telegram.bot.context import BotServices
    from chalicelib.telegram.services.topic_streams import StreamPacing


@dataclass
class Container(TaskWiring, AgentWiring, MemoryWiring, GraphWiring, LearningWiring, TelegramWiring,
                AssistantWiring, OpsWiring, RemoteWiring, AuthWiring, NamespaceWiring, TriggersWiring,
                ContextWiring, CoreWiring):
    settings: Settings
    stream_pacing: StreamPacing | None = None  # Telegram topic streams' pace (tests pass a fast one)

    @cached_property
    def prompt_enricher(self) -> PromptEnricher:
        from chalicelib.agents.services.enrichment import AgentPromptEnricher
        from chalicelib.codeintel.services.expertise_enricher import ExpertiseEnricher

        # ranked lessons + rules (the learning loop), a subagent profile's lessons and messages,
        # then the repository's expertise document
        agents = AgentPromptEnricher(self.lesson_enricher, self.agents_units, self.tasks)
        return ExpertiseEnricher(agents, self.codeintel.repo_expertise.expertise_for)

    @cached_property
    def task_event_publisher(self) -> TaskEventPublisher:
        """Task and session output into their Telegram topics; nothing without a bot token."""
        if not self.telegram_enabled:
            from chalicelib.tasks.services.ports import NullTaskEventPublisher

            return NullTaskEventPublisher()
        from chalicelib.telegram.services.telegram_publisher import TopicEventPublisher

        return TopicEventPublisher(self.telegram_topics, self.topic_streams)

    @cached_property
    def outcome_listener(self) -> OutcomeListener:
        from chalicelib.agents.services.outcome_hook import RunOutcomeHook
        from chalicelib.learning.services.lesson_outcome_recorder import LessonOutcomeRecorder

        # credits lessons, learns new ones; then finishes the subagent run the task belonged to
        return RunOutcomeHook(LessonOutcomeRecorder(self.lessons, self.task_lessons), self.agent_lifecycle)

    @cached_property
    def bot_services(self) -> BotServices:
        """What the bot's handlers use (they never see this container)."""
        from chalicelib.telegram.bot.context import BotServices
        from chalicelib.telegram.services.memory_admin import TelegramMemoryAdmin
        from chalicelib.telegram.services.rule_offers import RuleOffers
        from chalicelib.telegram.services.session_requests import SessionRequests
        from chalicelib.telegram.services.telegram_context import TelegramContext
        from chalicelib.telegram.services.telegram_conversation import ContextProvider, Conversation

        knowledge = TelegramContext(memory=lambda: self.memory, lessons=lambda: self.lesson_enricher,
                                    rules=lambda: self.project_rules, list_tasks=self.tasks.list_tasks)
        around = self.assistant_context
        providers = [*(ContextProvider(t, f) for t, f in around.leading()), *knowledge.providers(),
                     *(ContextProvider(t, f) for t, f in around.trailing())]
        return BotServices(
            telegram=self.telegram_gateway.on_loop, access=self.telegram_access,
            forum_chat_id=self.settings.telegram_chat_id, topics=self.telegram_topics,
            streams=self.topic_streams, reminders=self.reminders,
            session_requests=SessionRequests(self.telegram_uow), knowledge=knowledge,
            conversation=Conversation(self.llm, providers, remember=knowledge.remember),
            feedback=self.task_feedback, tasks=self.tasks, sessions=self.agent_sessions,
            machines=self.machine_registry, ssh_runs=self.ssh_runs, folder_walks=self.folder_walks,
            resume_listings=self.resume_listings,
            memory_admin=TelegramMemoryAdmin(lifecycle=lambda: self.memory_lifecycle,
                                             integrity=lambda: self.memory_integrity,
                                             snapshots=lambda: self.memory_snapshots),
            onboarding=self.machine_onboarding, public_url=self.settings.public_url,
            brain=self.brain_decisions, logs=self.log_tail, machine_controls=self.machine_controls,
            graph_admin=self.graph_admin, rule_clashes=self.rule_clashes, approvals=self.tool_approvals,
            graph_recall=lambda query, project: self.graph_retrieve.deep(project, query).text,
            assistant=self.user_model, offers=self.task_offers, deploys=self.project_deploys,
            repo_registry=self.codeintel.github_sync.repos, agent_runs=self.agent_runs,
            agent_cron=self.agent_cron, review=self.memory_review, transcriber=self.transcriber,
            budgets=self.task_budgets,
            rule_offers=RuleOffers(rules=lambda: self.project_rules, promotion=lambda: self.rule_promotion,
                                   scopes_of=lambda project: self.namespaces.scopes_of(project),
                                   namespace_names=lambda: [n.name for n in self.namespaces.listing()]),
            task_text=self.settings.telegram_task_text)

    def machine_of(self, kind: Owned, ref: str) -> tuple[bool, str | None]:
        """Whether a task, session, subagent run or SSH run exists, and the machine it is on (None: none
        yet): what the access policy binds a machine key to. A subagent run is on its task's machine."""
        from chalicelib.auth.domain.machine_scope import Owned
        from chalicelib.kernel.errors import InvalidInput, NotFound

        def task_machine(task_ref: str) -> str | None:
            task = self.tasks.get(task_ref)
            return task.machine_id or task.target_machine

        try:
            if kind is Owned.TASK:
                return True, task_machine(ref)
            if kind is Owned.SESSION:
                return True, self.agent_sessions.get(ref).machine_id
            if kind is Owned.SSH_RUN:
                return True, self.ssh_runs.get(ref).machine_id
            run = self.agent_runs.get(ref)
            return True, task_machine(run.task_id) if run.task_id else run.target_machine
        except (NotFound, InvalidInput):
            return False, None

    def warm_up(self) -> None:
        """Pay one-time costs (pool, models) before the first request; used by long-lived servers."""
        self.db.ping()
        from chalicelib.memory.adapters.embedders import warm_up_embedder

        warm_up_embedder(self.embedder)

    def close(self) -> None:
        if "memory" in self.__dict__:
            self.memory.close()
        if "telegram_gateway" in self.__dict__:
            self.telegram_gateway.close()
        if "db" in self.__dict__:
            self.db.close()


def build(settings: Settings | None = None) -> Container:
    if settings is None:
        from chalicelib.kernel.settings import Settings  # pydantic-settings: paid on first use

        settings = Settings.from_env()
    return Container(settings)


_container: Container | None = None
_container_lock = threading.Lock()


def get_container() -> Container:
    """Return the process-wide container, building it on first use."""
    global _container
    if _container is None:
        with _container_lock:
            if _container is None:
                _container = build()
    return _container


def set_container(container: Container | None) -> None:
    """Install a container (the local stack and tests choose their own settings)."""
    global _container
    with _container_lock:
        _container = container
