"""What every capability builds on: the database pool, the queues, the budgeted LLM and the embedder."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.queues import SqsQueues
    from chalicelib.kernel.settings import Settings
    from chalicelib.llm.services.budgeted_transcriber import BudgetedTranscriber, DisabledTranscriber
    from chalicelib.llm.services.ports import LanguageModel, LlmUnits
    from chalicelib.memory.services.ports import Embedder


class CoreWiring:
    settings: Settings

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
