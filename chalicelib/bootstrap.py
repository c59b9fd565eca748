"""The composition root: build adapters from Settings and hand back ready services.

Entry points (routes, Lambda handlers, the local stack) call `get_container()`; tests call
`build(settings)` with their own settings. Nothing here does I/O until a service is used.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING

# Adapters and services are imported where they are built: `import app` (a Lambda cold start)
# then pays only for the routes, and each container builds only what its requests use.
if TYPE_CHECKING:
    from chalicelib.agents.services.cron import AgentCron
    from chalicelib.agents.services.lessons import ProfileLessons
    from chalicelib.agents.services.lifecycle import SubagentLifecycle
    from chalicelib.agents.services.messaging import AgentMessaging
    from chalicelib.agents.services.ports import AgentsUnits
    from chalicelib.agents.services.profiles import AgentProfiles
    from chalicelib.agents.services.runs import SubagentRuns
    from chalicelib.approvals.services.tool_approvals import ToolApprovals
    from chalicelib.assistant.domain.offers import Offer
    from chalicelib.assistant.services.assistant_context import AssistantContext
    from chalicelib.assistant.services.ports import AssistantUnits
    from chalicelib.assistant.services.task_offers import TaskOffers
    from chalicelib.assistant.services.user_model import UserModel
    from chalicelib.auth.services.authenticator import Authenticator
    from chalicelib.auth.services.key_admin import KeyAdmin
    from chalicelib.auth.services.machine_onboarding import MachineOnboarding
    from chalicelib.brain.services.brain_loop import BrainLoop
    from chalicelib.brain.services.ports import BrainUnits, ProposalChannel
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions
    from chalicelib.codeintel.services.workers import CodeIntelWorkers
    from chalicelib.console.services.console_auth import ConsoleAuth
    from chalicelib.console.services.reads import ReadsFactory
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.graph.services.graph_retrieve import GraphRetrieve
    from chalicelib.graph.services.graph_store import GraphStore
    from chalicelib.graph.services.ports import GraphUnits
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.kernel.settings import Settings
    from chalicelib.learning.services.insight_extraction import InsightExtraction
    from chalicelib.learning.services.learning_review import LearningReview
    from chalicelib.learning.services.lesson_enrichment import LessonEnricher
    from chalicelib.learning.services.lessons import Lessons
    from chalicelib.learning.services.ports import LearningUnits
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.learning.services.task_feedback import TaskFeedback
    from chalicelib.learning.services.task_lessons import TaskLessons
    from chalicelib.llm.services.ports import LanguageModel, LlmUnits
    from chalicelib.memory.domain.memory_model import SearchHit
    from chalicelib.memory.services.lifecycle_ports import LifecycleUnits
    from chalicelib.memory.services.memory_eviction import MemoryEviction
    from chalicelib.memory.services.memory_integrity import MemoryIntegrity
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_recall import MemoryRecall
    from chalicelib.memory.services.memory_service import MemoryService
    from chalicelib.memory.services.memory_snapshots import MemorySnapshots
    from chalicelib.memory.services.memory_transfer import MemoryTransfer
    from chalicelib.memory.services.ports import Embedder, MemoryUnits
    from chalicelib.memory.services.rule_import import RuleImport
    from chalicelib.memory.services.search_explain import SearchExplainer
    from chalicelib.ops.services.health_monitor import HealthMonitor
    from chalicelib.ops.services.log_tail import LogTail
    from chalicelib.ops.services.machine_controls import MachineControls
    from chalicelib.sessions.services.ports import SessionUnits
    from chalicelib.sessions.services.sessions import SessionService
    from chalicelib.ssh.services.ssh_runs import SshRuns
    from chalicelib.ssh.services.ssh_targets import SshTargets
    from chalicelib.sync.services.file_sync import FileSync
    from chalicelib.tasks.services.agent_sessions import AgentSessionService
    from chalicelib.tasks.services.dispatch import TaskDispatcher
    from chalicelib.tasks.services.machines import MachineRegistry
    from chalicelib.tasks.services.ports import (
        OutcomeListener,
        PromptEnricher,
        TaskEventPublisher,
        TaskQueues,
    )
    from chalicelib.tasks.services.task_deps import TaskDeps
    from chalicelib.tasks.services.task_policy import TaskPolicy
    from chalicelib.tasks.services.task_runs import TaskRunService
    from chalicelib.tasks.services.task_sweep import TaskSweeper
    from chalicelib.tasks.services.tasks import TaskService
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
    from chalicelib.telegram.bot.context import BotServices
    from chalicelib.telegram.services.folder_walks import FolderWalks
    from chalicelib.telegram.services.ports import UnitOfWorkFactory as TelegramUnitOfWorkFactory
    from chalicelib.telegram.services.reminders import Reminders
    from chalicelib.telegram.services.telegram_intake import AccessGuard, TelegramIntake, UpdateRunner
    from chalicelib.telegram.services.topic_directory import TopicDirectory
    from chalicelib.telegram.services.topic_streams import StreamPacing, TopicStreams


@dataclass
class Container:
    settings: Settings
    stream_pacing: StreamPacing | None = None  # Telegram topic streams' pace (tests pass a fast one)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @cached_property
    def db(self) -> Database:
        from chalicelib.kernel.database import Database

        s = self.settings
        return Database(s.database_url, min_size=s.db_pool_min, max_size=s.db_pool_max)

    # Scoped API keys (docs/deploy.md, "Keys"): the configured admin keys, then stored ones.
    @cached_property
    def key_admin(self) -> KeyAdmin:
        from chalicelib.auth.adapters.key_repository import PostgresKeysUnitOfWork
        from chalicelib.auth.services.key_admin import KeyAdmin

        return KeyAdmin(partial(PostgresKeysUnitOfWork, self.db))

    @cached_property
    def authenticator(self) -> Authenticator:
        from chalicelib.auth.adapters.key_repository import PostgresKeysUnitOfWork
        from chalicelib.auth.services.authenticator import Authenticator

        return Authenticator(partial(PostgresKeysUnitOfWork, self.db), self.settings.api_keys)

    @cached_property
    def machine_onboarding(self) -> MachineOnboarding:
        from chalicelib.auth.adapters.key_repository import PostgresInvitesUnitOfWork
        from chalicelib.auth.services.machine_onboarding import MachineOnboarding

        return MachineOnboarding(partial(PostgresInvitesUnitOfWork, self.db))

    @cached_property
    def queues(self) -> SqsQueues:
        from chalicelib.kernel.queues import SqsQueues

        s = self.settings
        return SqsQueues(prefix=s.queue_prefix, region=s.aws_region, endpoint_url=s.sqs_endpoint_url)

    @cached_property
    def llm_units(self) -> LlmUnits:
        from chalicelib.llm.adapters.llm_usage_repository import llm_units

        return llm_units(self.db)

    @cached_property
    def llm(self) -> LanguageModel:
        """The budgeted LLM port (a disabled one without an API key)."""
        from chalicelib.llm.adapters.openai_chat import OpenAIChat
        from chalicelib.llm.domain.llm_budget import DailyBudget
        from chalicelib.llm.services.budgeted_llm import BudgetedLlm, DisabledLlm

        s = self.settings
        if not s.llm_enabled:
            return DisabledLlm()
        chat = OpenAIChat(api_key=s.openai_api_key, base_url=s.openai_base_url, model=s.llm_model)
        return BudgetedLlm(chat, self.llm_units,
                           DailyBudget(usd=s.llm_daily_budget_usd, tokens=s.llm_daily_budget_tokens))

    @cached_property
    def session_units(self) -> SessionUnits:
        from chalicelib.sessions.adapters.session_unit_of_work import session_units

        return session_units(self.db)

    @cached_property
    def sessions(self) -> SessionService:
        from chalicelib.kernel.redaction import redact
        from chalicelib.sessions.services.sessions import SessionService

        return SessionService(self.session_units, redact,
                              on_complete=lambda project, sid: self.memory_lifecycle.after_session(project,
                                                                                                   sid))

    # Task orchestration. The three ports below are the one-line swaps: prompt_enricher (the
    # learning loop's ranked lessons), task_event_publisher (Telegram topics), outcome_listener.
    @cached_property
    def task_policy(self) -> TaskPolicy:
        from chalicelib.tasks.services.task_policy import TaskPolicy

        return TaskPolicy.from_settings(self.settings)

    @cached_property
    def task_queues(self) -> TaskQueues:
        from chalicelib.tasks.adapters.sqs_task_queues import SqsTaskQueues

        return SqsTaskQueues(self.queues)

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
    def task_deps(self) -> TaskDeps:
        from chalicelib.tasks.adapters.postgres_tasks_uow import PostgresTasksUnitOfWork
        from chalicelib.tasks.services.task_deps import TaskDeps

        return TaskDeps(lambda: PostgresTasksUnitOfWork(self.db), self.task_queues, self.task_policy,
                        self.task_event_publisher)

    @cached_property
    def tasks(self) -> TaskService:
        from chalicelib.tasks.services.tasks import TaskService

        return TaskService(self.task_deps)

    @cached_property
    def task_dispatcher(self) -> TaskDispatcher:
        from chalicelib.tasks.services.dispatch import TaskDispatcher

        return TaskDispatcher(self.task_deps)

    @cached_property
    def task_runs(self) -> TaskRunService:
        from chalicelib.tasks.services.task_runs import TaskRunService

        return TaskRunService(self.task_deps, self.prompt_enricher, self.outcome_listener)

    @cached_property
    def machine_registry(self) -> MachineRegistry:
        from chalicelib.tasks.services.machines import MachineRegistry

        s = self.settings
        return MachineRegistry(self.task_deps, sqs_endpoint_url=s.sqs_endpoint_url, region=s.aws_region)

    @cached_property
    def task_sweeper(self) -> TaskSweeper:
        from chalicelib.tasks.services.task_sweep import TaskSweeper

        return TaskSweeper(self.task_deps)

    @cached_property
    def agent_sessions(self) -> AgentSessionService:
        from chalicelib.tasks.services.agent_sessions import AgentSessionService

        return AgentSessionService(self.task_deps)

    # Subagents: profiles, runs (executed as tasks), messages, cron jobs, lessons, the lifecycle.
    @cached_property
    def agents_units(self) -> AgentsUnits:
        from chalicelib.agents.adapters.postgres_agents_uow import PostgresAgentsUnitOfWork

        return lambda: PostgresAgentsUnitOfWork(self.db)

    @cached_property
    def agent_profiles(self) -> AgentProfiles:
        from chalicelib.agents.services.profiles import AgentProfiles

        return AgentProfiles(self.agents_units)

    @cached_property
    def agent_runs(self) -> SubagentRuns:
        from chalicelib.agents.services.runs import SubagentRuns

        return SubagentRuns(self.agents_units, self.tasks, self.agent_profiles)

    @cached_property
    def agent_messaging(self) -> AgentMessaging:
        from chalicelib.agents.services.messaging import AgentMessaging

        return AgentMessaging(self.agents_units, self.tasks, self.agent_runs)

    @cached_property
    def profile_lessons(self) -> ProfileLessons:
        from chalicelib.agents.services.lessons import ProfileLessons

        return ProfileLessons(self.agents_units)

    @cached_property
    def agent_cron(self) -> AgentCron:
        from chalicelib.agents.services.cron import AgentCron

        return AgentCron(self.agents_units, self.agent_runs)

    @cached_property
    def agent_lifecycle(self) -> SubagentLifecycle:
        from chalicelib.agents.services.lifecycle import SubagentLifecycle
        from chalicelib.agents.services.ports import NullReporter

        return SubagentLifecycle(self.agents_units, self.tasks, self.agent_runs, self.agent_messaging,
                                 self.profile_lessons, NullReporter())

    # Memory core: the embedder (cached, local model or OpenAI) and the memory service.
    @cached_property
    def embedder(self) -> Embedder:
        from chalicelib.memory.adapters.embedders import build_embedder

        return build_embedder(self.settings, self.db)

    @cached_property
    def memory_units(self) -> MemoryUnits:
        from chalicelib.memory.adapters.memory_unit_of_work import memory_units

        return memory_units(self.db)

    @cached_property
    def memory(self) -> MemoryService:
        from chalicelib.memory.domain.search_scoring import SearchWeights
        from chalicelib.memory.services.memory_service import MemoryService

        s = self.settings
        weights = SearchWeights(s.search_vector_weight, s.search_text_weight, s.search_recency_weight,
                                s.search_recency_half_life_days, s.search_neighbours_weight)
        return MemoryService(self.memory_units, self.embedder, weights=weights,
                             query_timeout_s=s.embedding_timeout_s)

    @cached_property
    def memory_recall(self) -> MemoryRecall:
        from chalicelib.memory.services.memory_recall import MemoryRecall

        memory = self.memory

        def search(query: str, project: str, limit: int) -> list[SearchHit]:
            return memory.search(query, project, limit=limit).hits

        return MemoryRecall(self.memory_units, search)  # type: ignore[arg-type]  # it binds `recall`

    @cached_property
    def search_explainer(self) -> SearchExplainer:
        from chalicelib.memory.services.search_explain import SearchExplainer

        return SearchExplainer(self.memory_units, self.memory)  # type: ignore[arg-type]  # binds `explain`

    @cached_property
    def rule_import(self) -> RuleImport:
        from chalicelib.memory.services.rule_import import RuleImport

        return RuleImport(self.memory_units, self.memory)  # type: ignore[arg-type]  # binds `imports`

    # Tool approvals from Telegram (docs/hooks.md, "Tool approvals").
    @cached_property
    def tool_approvals(self) -> ToolApprovals:
        from chalicelib.approvals.adapters.approval_repository import approval_units
        from chalicelib.approvals.adapters.telegram_channel import NoApprovalChannel, TelegramApprovalChannel
        from chalicelib.approvals.services.tool_approvals import ApprovalChannel, ToolApprovals

        s = self.settings
        channel: ApprovalChannel = (TelegramApprovalChannel(lambda: self.telegram_gateway, s.telegram_chat_id)
                                    if s.telegram_bot_token and s.telegram_chat_id else NoApprovalChannel())
        return ToolApprovals(approval_units(self.db), channel)  # type: ignore[arg-type]

    # Memory lifecycle: phased eviction, archive and restore, tags and listing (docs/memory.md).
    @cached_property
    def lifecycle_units(self) -> LifecycleUnits:
        return self.memory_units  # type: ignore[return-value]  # the memory unit binds `lifecycle`

    @cached_property
    def memory_lifecycle(self) -> MemoryLifecycle:
        from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle

        return MemoryLifecycle(self.lifecycle_units, budget=self.settings.memory_budget,
                               enqueue=lambda body: self.queues.send("ingest", body))

    @cached_property
    def memory_eviction(self) -> MemoryEviction:
        from chalicelib.memory.services.memory_eviction import MemoryEviction
        from chalicelib.memory.services.memory_reducers import DeterministicReducer, LlmReducer

        reducer = LlmReducer(self.llm) if self.settings.llm_enabled else DeterministicReducer()
        return MemoryEviction(self.lifecycle_units, reducer, budget=self.settings.memory_budget,
                              batch_size=self.settings.memory_eviction_batch)

    @cached_property
    def memory_integrity(self) -> MemoryIntegrity:
        from chalicelib.memory.services.memory_integrity import MemoryIntegrity

        return MemoryIntegrity(self.lifecycle_units, self.embedder)

    @cached_property
    def memory_transfer(self) -> MemoryTransfer:
        from chalicelib.memory.services.memory_transfer import MemoryTransfer

        return MemoryTransfer(self.lifecycle_units, self.embedder)

    @cached_property
    def memory_snapshots(self) -> MemorySnapshots:
        from chalicelib.memory.services.memory_snapshots import MemorySnapshots

        return MemorySnapshots(self.lifecycle_units)

    # Graph memory: entities, facts, instructions with scope, plans, edges (docs/graph.md).
    @cached_property
    def graph_units(self) -> GraphUnits:
        from chalicelib.graph.adapters.graph_unit_of_work import graph_units

        return graph_units(self.db)

    @cached_property
    def graph_store(self) -> GraphStore:
        from chalicelib.graph.services.graph_store import GraphStore

        return GraphStore(self.graph_units, self.embedder, self.llm, self.llm,  # type: ignore[arg-type]
                          enqueue=lambda body: self.queues.send("ingest", body),
                          on_contradiction=self._announce_contradiction)

    def _announce_contradiction(self, contradiction: object) -> None:
        if self.telegram_enabled and self.settings.telegram_chat_id:
            from chalicelib.telegram.services.graph_contradictions import announce_contradiction

            announce_contradiction(self.telegram_gateway, self.settings.telegram_chat_id, contradiction)

    @cached_property
    def graph_retrieve(self) -> GraphRetrieve:
        from chalicelib.graph.services.graph_retrieve import GraphRetrieve

        return GraphRetrieve(self.graph_units, self.embedder, self.llm, self.llm)  # type: ignore[arg-type]

    @cached_property
    def graph_admin(self) -> GraphAdmin:
        from chalicelib.graph.services.graph_admin import GraphAdmin

        return GraphAdmin(self.graph_units, self.embedder)

    # Learning loop: insight extraction, project rules, lessons, weekly reviews (docs/learning.md).
    # Its units bind the memory core's repository too: rules and lessons are written through
    # the memory core's write path (`memory.store`) in the learning loop's own transactions.
    @cached_property
    def learning_units(self) -> LearningUnits:
        from chalicelib.learning.adapters.learning_unit_of_work import learning_units
        from chalicelib.memory.adapters.memory_repository import PostgresMemoryRepository

        return learning_units(self.db, PostgresMemoryRepository)

    @cached_property
    def project_rules(self) -> ProjectRules:
        from chalicelib.kernel.redaction import redact
        from chalicelib.learning.services.project_rules import ProjectRules

        return ProjectRules(self.learning_units, self.embedder, redact, self.memory.store)

    @cached_property
    def lessons(self) -> Lessons:
        from chalicelib.learning.services.lessons import Lessons

        return Lessons(self.learning_units, self.memory.store)

    @cached_property
    def lesson_enricher(self) -> LessonEnricher:
        from chalicelib.learning.services.lesson_enrichment import LessonEnricher

        return LessonEnricher(self.learning_units, self.embedder)

    @cached_property
    def task_feedback(self) -> TaskFeedback:
        """/feedback: a user's verdict on a task moves the lessons its prompt carried."""
        from chalicelib.learning.services.task_feedback import TaskFeedback

        return TaskFeedback(self.learning_units, self.lessons, self.task_lessons)

    @cached_property
    def task_lessons(self) -> TaskLessons:
        """A finished task read for insights, rules and lessons as a session is."""
        from chalicelib.learning.services.task_lessons import TaskLessons

        return TaskLessons(self.insight_extraction)

    @cached_property
    def insight_extraction(self) -> InsightExtraction:
        from chalicelib.kernel.redaction import redact
        from chalicelib.learning.services.insight_extraction import InsightExtraction

        return InsightExtraction(self.learning_units, self.llm, self.embedder, redact, self.project_rules,
                                 self.lessons, self.memory.store,
                                 enqueue=lambda body: self.queues.send("ingest", body))

    @cached_property
    def learning_review(self) -> LearningReview:
        from chalicelib.learning.services.learning_review import LearningReview

        return LearningReview(self.learning_units, self.llm, self.embedder, self.memory.store)

    # Code intelligence (docs/codeintel.md): the scheduled workers and the repos registry.
    @cached_property
    def codeintel(self) -> CodeIntelWorkers:
        from chalicelib.codeintel.adapters.codeintel_unit_of_work import codeintel_units
        from chalicelib.codeintel.adapters.github_client import GitHubClient
        from chalicelib.codeintel.services.workers import CodeIntelWorkers
        from chalicelib.kernel.redaction import redact

        s = self.settings
        github = GitHubClient(s.github_token, s.github_api_url) if s.github_token else None
        return CodeIntelWorkers(codeintel_units(self.db),
                                lambda drafts: self.memory.store.store(drafts, near_dedup=False),
                                self.llm, redact, github)

    # Telegram front-end (docs/telegram.md): update intake, the bot and its handlers, topic
    # streams, reminders. python-telegram-bot is imported only once the bot itself is used.
    @property
    def telegram_enabled(self) -> bool:
        return bool(self.settings.telegram_bot_token)

    @cached_property
    def telegram_uow(self) -> TelegramUnitOfWorkFactory:
        from chalicelib.telegram.adapters.postgres_unit_of_work import PostgresTelegramUnitOfWork

        return partial(PostgresTelegramUnitOfWork, self.db)

    @cached_property
    def telegram_gateway(self) -> TelegramGateway:
        """Every Bot API call, on the bot's own loop; the handlers are built when the bot starts."""
        from chalicelib.telegram.adapters.bot_runtime import BotRuntime
        from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
        from chalicelib.telegram.bot.handler_table import build_application

        s = self.settings
        return TelegramGateway(BotRuntime(
            lambda: build_application(s.telegram_bot_token, s.telegram_api_url, self.bot_services)))

    @cached_property
    def bot_services(self) -> BotServices:
        """What the bot's handlers use (they never see this container)."""
        from chalicelib.telegram.bot.context import BotServices
        from chalicelib.telegram.services.memory_admin import TelegramMemoryAdmin
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
            memory_admin=TelegramMemoryAdmin(lifecycle=lambda: self.memory_lifecycle,
                                             integrity=lambda: self.memory_integrity,
                                             snapshots=lambda: self.memory_snapshots),
            onboarding=self.machine_onboarding, public_url=self.settings.public_url,
            brain=self.brain_decisions, logs=self.log_tail, machine_controls=self.machine_controls,
            graph_admin=self.graph_admin, approvals=self.tool_approvals,
            graph_recall=lambda query, project: self.graph_retrieve.deep(project, query).text,
            assistant=self.user_model, offers=self.task_offers,
            repo_registry=self.codeintel.github_sync.repos, agent_runs=self.agent_runs,
            agent_cron=self.agent_cron)

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
            return self.tasks.create(NewTask(
                offer.project, offer.prompt, target_machine=offer.machine, telegram_chat_id=chat_id,
                telegram_topic_id=topic_id or None, idempotency_key=f"offer:{offer.id}"))

        return TaskOffers(self.assistant_units, self.llm, self.machine_registry.list_machines,
                          self.codeintel.github_sync.repos, create_task)

    @cached_property
    def folder_walks(self) -> FolderWalks:
        """The session picker's folder walk: listings asked of the machine's agent on its queue."""
        from chalicelib.telegram.services.folder_walks import FolderWalks

        def machine_folders(machine: str) -> bool:
            return any(m["id"] == machine and m["status"] == "online" and m["repos"]
                       for m in self.machine_registry.list_machines())

        return FolderWalks(self.telegram_uow, self.topic_streams, self.task_queues.send_to_machine,
                           machine_folders)

    @cached_property
    def telegram_access(self) -> AccessGuard:
        from chalicelib.telegram.services.telegram_intake import AccessGuard

        return AccessGuard(self.telegram_uow, self.settings.telegram_allowed_users)

    @cached_property
    def telegram_intake(self) -> TelegramIntake:
        """The webhook's (and local polling's) work: record the update once, queue it."""
        from chalicelib.telegram.adapters.sqs_telegram_queues import SqsUpdateQueue
        from chalicelib.telegram.services.telegram_intake import TelegramIntake

        return TelegramIntake(self.telegram_uow, SqsUpdateQueue(self.queues))

    @cached_property
    def telegram_updates(self) -> UpdateRunner:
        """The consumer's work: run the handlers once per update."""
        from chalicelib.telegram.services.telegram_intake import UpdateRunner

        gateway = self.telegram_gateway
        return UpdateRunner(self.telegram_uow, gateway.process, prepare=gateway.start)

    @cached_property
    def telegram_topics(self) -> TopicDirectory:
        from chalicelib.telegram.services.topic_directory import TopicDirectory

        # Looked up on use: the task and session services publish through this directory.
        return TopicDirectory(self.telegram_uow, lambda ref: self.tasks.get(ref),
                              lambda ref: self.agent_sessions.get(ref))

    @cached_property
    def topic_streams(self) -> TopicStreams:
        from chalicelib.telegram.adapters.sqs_telegram_queues import SqsStreamTrigger
        from chalicelib.telegram.services.topic_streams import TopicStreams

        return TopicStreams(self.telegram_uow, self.telegram_gateway, SqsStreamTrigger(self.queues),
                            self.stream_pacing)

    @cached_property
    def reminders(self) -> Reminders:
        from chalicelib.telegram.services.reminders import Reminders

        return Reminders(self.telegram_uow, self.telegram_gateway)

    # End-to-end encrypted file sync: ciphertext only (docs/sync.md).
    @cached_property
    def file_sync(self) -> FileSync:
        from chalicelib.sync.adapters.sync_file_repository import PostgresSyncUnitOfWork
        from chalicelib.sync.services.file_sync import FileSync

        return FileSync(lambda: PostgresSyncUnitOfWork(self.db))

    # SSH targets and one-off command runs (/ssh, /exec): machines connect, the server routes.
    @cached_property
    def ssh_targets(self) -> SshTargets:
        from chalicelib.ssh.adapters.ssh_repositories import PostgresSshUnitOfWork
        from chalicelib.ssh.services.ssh_targets import SshTargets

        return SshTargets(lambda: PostgresSshUnitOfWork(self.db))

    @cached_property
    def ssh_runs(self) -> SshRuns:
        from chalicelib.kernel.redaction import redact
        from chalicelib.ssh.adapters.ssh_repositories import PostgresSshUnitOfWork
        from chalicelib.ssh.services.ports import NullRunOutput, RunOutput
        from chalicelib.ssh.services.ssh_runs import SshRuns

        output: RunOutput = NullRunOutput()
        if self.telegram_enabled:
            from chalicelib.telegram.services.chat_stream import ChatStreamPublisher

            output = ChatStreamPublisher(self.topic_streams)
        return SshRuns(lambda: PostgresSshUnitOfWork(self.db), self.ssh_targets,
                       self.task_queues.send_to_machine, output, redact,
                       machine_online=self.machine_registry.is_online)

    # The brain loop: observations, proposals with Approve / Reject, the kill switch (docs/brain.md).
    @property
    def alert_chat_id(self) -> int | None:
        """Where proposals and health alerts go: the forum group, else the first allowed user."""
        s = self.settings
        if not self.telegram_enabled:
            return None
        return s.telegram_chat_id or (s.telegram_allowed_users[0] if s.telegram_allowed_users else None)

    @cached_property
    def brain_units(self) -> BrainUnits:
        from chalicelib.brain.adapters.brain_unit_of_work import PostgresBrainUnitOfWork

        return partial(PostgresBrainUnitOfWork, self.db)

    @cached_property
    def brain_channel(self) -> ProposalChannel:
        from chalicelib.brain.services.ports import NoChannel

        chat = self.alert_chat_id
        if chat is None:
            return NoChannel()
        from chalicelib.brain.adapters.telegram_channel import TelegramProposalChannel

        return TelegramProposalChannel(lambda: self.telegram_gateway, chat)

    @cached_property
    def brain_decisions(self) -> ProposalDecisions:
        from chalicelib.brain.adapters.brain_actions import CapabilityActions
        from chalicelib.brain.services.proposal_decisions import ProposalDecisions

        actions = CapabilityActions(lambda: self.tasks, lambda: self.queues,
                                    lambda machine: self.machine_registry.pause(machine))
        return ProposalDecisions(self.brain_units, actions, self.brain_channel)

    @cached_property
    def brain_loop(self) -> BrainLoop:
        from chalicelib.brain.adapters.brain_actions import QueueDepths
        from chalicelib.brain.services.brain_loop import BrainLoop

        return BrainLoop(self.brain_units, self.llm, QueueDepths(lambda: self.queues), self.brain_channel,
                         expire=self.brain_decisions.expire_due)

    @cached_property
    def machine_controls(self) -> MachineControls:
        """/engines, /update, /restart: what the agents hear in their heartbeats' answers."""
        from chalicelib.ops.adapters.machine_control_repository import PostgresControlsUnitOfWork
        from chalicelib.ops.services.machine_controls import MachineControls

        def notify(chat_id: int, topic_id: int, text: str) -> None:
            self.telegram_gateway.send(chat_id, text, topic_id=topic_id)

        return MachineControls(partial(PostgresControlsUnitOfWork, self.db),
                               notify if self.telegram_enabled else None)

    @cached_property
    def log_tail(self) -> LogTail:
        """/logs: the local log files, or the stack's CloudWatch Logs (named as its queue prefix) in AWS."""
        import os

        from chalicelib.ops.services.log_tail import LogSource, LogTail

        def source() -> LogSource:
            if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
                from chalicelib.kernel.cloudwatch_logs import CloudWatchLogs

                return CloudWatchLogs(self.settings.queue_prefix, region=self.settings.aws_region)
            from chalicelib.contracts.log_files import LocalLogFiles

            return LocalLogFiles(self.settings.home / "logs")

        return LogTail(source)

    # The health monitor (every minute): alerts Telegram once per outage; CloudWatch metrics in AWS.
    @cached_property
    def health_monitor(self) -> HealthMonitor:
        from chalicelib.ops.adapters.health_wiring import build_health_monitor

        return build_health_monitor(self.settings, self.db.ping, lambda: self.queues,
                                    self.machine_registry.list_machines, self.llm_units,
                                    lambda: self.telegram_gateway, self.alert_chat_id)

    def warm_up(self) -> None:
        """Pay one-time costs (pool, models) before the first request; used by long-lived servers."""
        self.db.ping()
        from chalicelib.memory.adapters.embedders import warm_up_embedder

        warm_up_embedder(self.embedder)

    @cached_property
    def console_auth(self) -> ConsoleAuth:
        from chalicelib.console.adapters.console_repository import PostgresConsoleUnitOfWork
        from chalicelib.console.services.console_auth import ConsoleAuth

        def admin_name(key: str) -> str | None:
            principal = self.authenticator.principal(key)
            return principal.name if principal is not None and principal.is_admin else None

        return ConsoleAuth(partial(PostgresConsoleUnitOfWork, self.db), admin_name)

    @property
    def console_reads(self) -> ReadsFactory:
        from chalicelib.console.adapters.console_reads import console_reads

        return partial(console_reads, self.db)

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
