"""What every capability builds on: the database pool, the queues, the budgeted LLM and the embedder,
and the declaration of the facades one capability's wiring builds for the others."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chalicelib.codeintel.services.workers import CodeIntelWorkers
    from chalicelib.graph.services.graph_retrieve import GraphRetrieve
    from chalicelib.graph.services.graph_store import GraphStore
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.kernel.settings import Settings
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.learning.services.rule_clashes import RuleClashes
    from chalicelib.llm.services.budgeted_transcriber import BudgetedTranscriber, DisabledTranscriber
    from chalicelib.llm.services.ports import LanguageModel, LlmUnits
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_recall import MemoryRecall
    from chalicelib.memory.services.memory_service import MemoryService
    from chalicelib.memory.services.ports import Embedder
    from chalicelib.namespaces.services.namespaces import Namespaces
    from chalicelib.sessions.services.sessions import SessionService
    from chalicelib.tasks.services.agent_sessions import AgentSessionService
    from chalicelib.tasks.services.machines import MachineRegistry
    from chalicelib.tasks.services.ports import (
        OutcomeListener,
        PromptEnricher,
        TaskEventPublisher,
        TaskQueues,
    )
    from chalicelib.tasks.services.task_budgets import TaskBudgets
    from chalicelib.tasks.services.task_runs import TaskRunService
    from chalicelib.tasks.services.tasks import TaskService
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
    from chalicelib.telegram.bot.context import BotServices
    from chalicelib.telegram.services.topic_directory import TopicDirectory
    from chalicelib.telegram.services.topic_streams import TopicStreams


class CoreWiring:
    settings: Settings

    if TYPE_CHECKING:  # the facades one capability's wiring builds and others use, declared once
        @property
        def agent_sessions(self) -> AgentSessionService: ...
        @property
        def bot_services(self) -> BotServices: ...
        @property
        def codeintel(self) -> CodeIntelWorkers: ...
        @property
        def graph_retrieve(self) -> GraphRetrieve: ...
        @property
        def graph_store(self) -> GraphStore: ...
        @property
        def machine_registry(self) -> MachineRegistry: ...
        @property
        def memory(self) -> MemoryService: ...
        @property
        def memory_lifecycle(self) -> MemoryLifecycle: ...
        @property
        def memory_recall(self) -> MemoryRecall: ...
        @property
        def namespaces(self) -> Namespaces: ...
        @property
        def outcome_listener(self) -> OutcomeListener: ...
        @property
        def project_rules(self) -> ProjectRules: ...
        @property
        def prompt_enricher(self) -> PromptEnricher: ...
        @property
        def rule_clashes(self) -> RuleClashes: ...
        @property
        def sessions(self) -> SessionService: ...
        @property
        def task_budgets(self) -> TaskBudgets: ...
        @property
        def task_event_publisher(self) -> TaskEventPublisher: ...
        @property
        def task_queues(self) -> TaskQueues: ...
        @property
        def task_runs(self) -> TaskRunService: ...
        @property
        def tasks(self) -> TaskService: ...
        @property
        def telegram_enabled(self) -> bool: ...
        @property
        def telegram_gateway(self) -> TelegramGateway: ...
        @property
        def telegram_topics(self) -> TopicDirectory: ...
        @property
        def topic_streams(self) -> TopicStreams: ...

    @cached_property
    def db(self) -> Database:
        from chalicelib.kernel.database import Database

        s = self.settings
        return Database(s.database_url, min_size=s.db_pool_min, max_size=s.db_pool_max)

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
    def transcriber(self) -> BudgetedTranscriber | DisabledTranscriber:
        """Voice notes to text, within the LLM budget (a disabled one without an API key)."""
        from chalicelib.llm.adapters.openai_transcription import OpenAITranscription
        from chalicelib.llm.domain.llm_budget import DailyBudget
        from chalicelib.llm.services.budgeted_transcriber import BudgetedTranscriber, DisabledTranscriber

        s = self.settings
        if not s.llm_enabled:
            return DisabledTranscriber()
        speech = OpenAITranscription(api_key=s.openai_api_key, base_url=s.openai_base_url,
                                     model=s.transcription_model)
        return BudgetedTranscriber(speech, self.llm_units,
                                   DailyBudget(usd=s.llm_daily_budget_usd, tokens=s.llm_daily_budget_tokens))

    # Memory core: the embedder (cached, local model or OpenAI) and the memory service.
    @cached_property
    def embedder(self) -> Embedder:
        from chalicelib.memory.adapters.embedders import build_embedder

        return build_embedder(self.settings, self.db)
