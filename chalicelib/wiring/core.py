"""What every capability builds on: the database pool, the queues, the budgeted LLM and the embedder
(each built on first use from its kit: `kits/core.py`, `kits/models.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.kernel.settings import Settings
    from chalicelib.wiring.kits import core as kit
    from chalicelib.wiring.kits import models
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.core")
    models = ImportedOnUse("chalicelib.wiring.kits.models")


def _daily_budget(c: Container) -> models.DailyBudget:
    return models.DailyBudget(usd=c.settings.llm_daily_budget_usd, tokens=c.settings.llm_daily_budget_tokens)


def _llm(c: Container) -> models.LanguageModel:
    """The budgeted LLM port (a disabled one without an API key)."""
    s = c.settings
    if not s.llm_enabled:
        return models.DisabledLlm()
    chat = models.OpenAIChat(api_key=s.openai_api_key, base_url=s.openai_base_url, model=s.llm_model)
    return models.BudgetedLlm(chat, c.llm_units, _daily_budget(c))


def _transcriber(c: Container) -> models.BudgetedTranscriber | models.DisabledTranscriber:
    """Voice notes to text, within the LLM budget (a disabled one without an API key)."""
    s = c.settings
    if not s.llm_enabled:
        return models.DisabledTranscriber()
    speech = models.OpenAITranscription(api_key=s.openai_api_key, base_url=s.openai_base_url,
                                        model=s.transcription_model)
    return models.BudgetedTranscriber(speech, c.llm_units, _daily_budget(c))


class CoreWiring:
    settings: Settings

    @property
    def telegram_enabled(self) -> bool:
        return bool(self.settings.telegram_bot_token)

    db: kit.Database = provide(lambda c: kit.Database(
        c.settings.database_url, min_size=c.settings.db_pool_min, max_size=c.settings.db_pool_max))
    queues: kit.SqsQueues = provide(lambda c: kit.SqsQueues(
        prefix=c.settings.queue_prefix, region=c.settings.aws_region,
        endpoint_url=c.settings.sqs_endpoint_url))
    llm_units: models.LlmUnits = provide(lambda c: models.llm_units(c.db))
    llm: models.LanguageModel = provide(_llm)
    transcriber: models.BudgetedTranscriber | models.DisabledTranscriber = provide(_transcriber)
    # Memory core: the embedder (cached, local model or OpenAI); the memory service is memory.py's.
    embedder: models.Embedder = provide(lambda c: models.build_embedder(c.settings, c.db))
