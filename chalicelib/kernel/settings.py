"""One frozen Settings object (pydantic-settings), read from the environment once per process.

Each field names its environment variable. `Settings.from_env(env)` reads a given mapping (tests,
the local stack) or the process environment; in AWS, `<VAR>_SECRET_ID` variables are first
resolved from Secrets Manager (chalicelib/kernel/secrets.py). Secrets are held in memory only and
never appear in `repr`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, SettingsConfigDict

from chalicelib.contracts.local_home import itachi_home, read_json
from chalicelib.contracts.prompt_context import STALE_AFTER_DAYS


def _env(name: str, *more: str) -> Any:
    """The variable(s) a field is read from; the field's own name works too (model_copy, tests)."""
    return AliasChoices(name, *more)


Csv = Annotated[tuple[str, ...], NoDecode]
UserIds = Annotated[tuple[int, ...], NoDecode]
_EMBEDDING_DEFAULTS = {"openai": ("text-embedding-3-small", 1536), "local": ("all-MiniLM-L6-v2", 384)}


class Settings(BaseSettings):
    """Deployment settings; one instance per process, built by the composition root."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore", case_sensitive=True,
                                      env_ignore_empty=True, populate_by_name=True)

    home: Path = Field(default_factory=itachi_home, validation_alias=_env("ITACHI_HOME"))
    stage: str = Field("local", validation_alias=_env("ITACHI_STAGE"))
    database_url: str = Field("", repr=False, validation_alias=_env("DATABASE_URL"))
    api_keys: Csv = Field((), repr=False, validation_alias=_env("ITACHI_API_KEYS", "ITACHI_API_KEY"))
    # Where the admin keys live in AWS: read again every minute, so a rotation needs no redeploy.
    api_keys_secret_id: str = Field("", validation_alias=_env("ITACHI_API_KEYS_SECRET_ID"))
    aws_region: str = Field("us-east-1", validation_alias=_env("AWS_REGION", "AWS_DEFAULT_REGION"))
    sqs_endpoint_url: str | None = Field(None, validation_alias=_env("ITACHI_SQS_ENDPOINT"))
    queue_prefix: str = Field("itachi-local", validation_alias=_env("ITACHI_QUEUE_PREFIX"))
    # The stack's alarm topic (AWS only): each machine queue's DLQ gets an alarm to it when made.
    alarm_topic_arn: str = Field("", validation_alias=_env("ITACHI_ALARM_TOPIC_ARN"))
    # The role the API assumes to vend an agent credentials for its own queue (the template sets it).
    machine_role_arn: str | None = Field(None, validation_alias=_env("ITACHI_MACHINE_ROLE_ARN"))
    max_body_bytes: int = Field(1_000_000, gt=0, validation_alias=_env("ITACHI_MAX_BODY_BYTES"))
    # Database pool: a Lambda container serves one request at a time (min 0, max 2 there).
    db_pool_min: int = Field(1, ge=0, validation_alias=_env("ITACHI_DB_POOL_MIN"))
    db_pool_max: int = Field(8, ge=1, validation_alias=_env("ITACHI_DB_POOL_MAX"))
    # Embeddings: OpenAI's when an OpenAI key is set, unless the deployment pins the provider.
    embedding_provider: str = Field("local", validation_alias=_env("ITACHI_EMBEDDING_PROVIDER"))
    embedding_model: str = Field("all-MiniLM-L6-v2", validation_alias=_env("ITACHI_EMBEDDING_MODEL"))
    embedding_dim: int = Field(384, gt=0, validation_alias=_env("ITACHI_EMBEDDING_DIM"))
    embedding_timeout_s: float = Field(2.0, gt=0, validation_alias=_env("ITACHI_EMBEDDING_TIMEOUT_S"))
    # Local model's torch threads (0 = one per core). One keeps a query's embedding fast on a small
    # machine that runs other work (docs/benchmarks.md, "Memory core"); raise it for bulk imports.
    embedding_threads: int = Field(1, ge=0, validation_alias=_env("ITACHI_EMBEDDING_THREADS"))
    # LLM (OpenAI-compatible)
    openai_api_key: str = Field("", repr=False, validation_alias=_env("OPENAI_API_KEY"))
    openai_base_url: str | None = Field(None, validation_alias=_env("OPENAI_BASE_URL"))
    llm_model: str = Field("gpt-4o-mini", validation_alias=_env("ITACHI_LLM_MODEL"))
    transcription_model: str = Field("whisper-1", validation_alias=_env("ITACHI_TRANSCRIPTION_MODEL"))
    llm_daily_budget_usd: float = Field(1.0, ge=0, validation_alias=_env("ITACHI_LLM_DAILY_BUDGET_USD"))
    # 0 = no token cap, the dollar cap applies
    llm_daily_budget_tokens: int = Field(0, ge=0, validation_alias=_env("ITACHI_LLM_DAILY_BUDGET_TOKENS"))
    # GitHub sync (the repos registry); no token, no sync
    github_token: str = Field("", repr=False, validation_alias=_env("GITHUB_TOKEN"))
    github_api_url: str = Field("https://api.github.com", validation_alias=_env("ITACHI_GITHUB_API_URL"))
    # GitHub-triggered tasks (docs/tasks.md): the webhook's shared secret (no secret, every delivery
    # is refused), the issue label and the comment mention that start a task.
    github_webhook_secret: str = Field("", repr=False, validation_alias=_env("GITHUB_WEBHOOK_SECRET"))
    github_task_label: str = Field("itachi", min_length=1, validation_alias=_env("ITACHI_GITHUB_TASK_LABEL"))
    github_task_mention: str = Field("@itachi", min_length=2,
                                     validation_alias=_env("ITACHI_GITHUB_TASK_MENTION"))
    # Hybrid search. Chosen on LoCoMo (docs/benchmarks.md, "Memory core"); the seeds' 0.7/0.3 measured lower.
    search_vector_weight: float = Field(0.4, ge=0, validation_alias=_env("ITACHI_SEARCH_VECTOR_WEIGHT"))
    search_text_weight: float = Field(0.6, ge=0, validation_alias=_env("ITACHI_SEARCH_TEXT_WEIGHT"))
    search_recency_half_life_days: float = Field(
        90.0, gt=0, validation_alias=_env("ITACHI_SEARCH_RECENCY_HALF_LIFE_DAYS"))
    search_recency_weight: float = Field(0.1, ge=0, validation_alias=_env("ITACHI_SEARCH_RECENCY_WEIGHT"))
    # Memories stored next to a strong hit join it at this share of its score (0: off; docs/memory.md).
    search_neighbours_weight: float = Field(0.7, ge=0, lt=1,
                                            validation_alias=_env("ITACHI_SEARCH_NEIGHBOURS_WEIGHT"))
    # A query naming a time favours memories stored near it by this weight (0: off; docs/memory.md).
    search_dates_weight: float = Field(0.3, ge=0, le=1, validation_alias=_env("ITACHI_SEARCH_DATES_WEIGHT"))
    # An injected memory neither stated nor confirmed within this many days reads "possibly stale"
    # (the hooks read the same variable; `contracts/prompt_context.STALE_AFTER_DAYS`, docs/hooks.md).
    stale_after_days: int = Field(STALE_AFTER_DAYS, ge=1, le=36_500,
                                  validation_alias=_env("ITACHI_STALE_AFTER_DAYS"))
    # Memory lifecycle (docs/memory.md): live memories per project before eviction starts, and
    # the size and time bound of one eviction run (a Lambda finishes well inside 15 minutes).
    memory_budget: int = Field(5000, ge=1, validation_alias=_env("ITACHI_MEMORY_BUDGET"))
    memory_eviction_batch: int = Field(500, ge=1, le=10_000,
                                       validation_alias=_env("ITACHI_MEMORY_EVICTION_BATCH"))
    memory_eviction_time_s: float = Field(600.0, gt=0, validation_alias=_env("ITACHI_MEMORY_EVICTION_TIME_S"))
    # A language model's facts in search keys (docs/memory.md#search-keys): memories one `search-facts`
    # run asks the model about, and how many of them go in one call.
    search_facts_batch: int = Field(40, ge=1, le=1000, validation_alias=_env("ITACHI_SEARCH_FACTS_BATCH"))
    search_facts_per_call: int = Field(8, ge=1, le=20, validation_alias=_env("ITACHI_SEARCH_FACTS_PER_CALL"))
    # Retention (docs/operations.md): days each kind of row is kept by the cleanup (0: forever).
    # Memories are never deleted by it; transcript chunks are the indexer's `transcript` memories.
    retention_task_events_days: int = Field(
        90, ge=0, validation_alias=_env("ITACHI_RETENTION_TASK_EVENTS_DAYS"))
    retention_session_edits_days: int = Field(
        90, ge=0, validation_alias=_env("ITACHI_RETENTION_SESSION_EDITS_DAYS"))
    retention_transcript_days: int = Field(
        180, ge=0, validation_alias=_env("ITACHI_RETENTION_TRANSCRIPT_DAYS"))
    retention_llm_usage_days: int = Field(
        400, ge=0, validation_alias=_env("ITACHI_RETENTION_LLM_USAGE_DAYS"))
    retention_batch_rows: int = Field(
        5000, ge=1, le=100_000, validation_alias=_env("ITACHI_RETENTION_BATCH_ROWS"))
    retention_time_s: float = Field(240.0, gt=0, validation_alias=_env("ITACHI_RETENTION_TIME_S"))
    # Self-healing (docs/operations.md): restarts the health monitor may ask of one machine per hour.
    health_max_restarts_per_hour: int = Field(
        3, ge=0, validation_alias=_env("ITACHI_HEALTH_MAX_RESTARTS_PER_HOUR"))
    # Task orchestration: leases, heartbeats, claim and overdue windows (docs/tasks.md).
    task_lease_s: float = Field(90.0, gt=0, validation_alias=_env("ITACHI_TASK_LEASE_S"))
    task_offline_after_s: float = Field(90.0, gt=0, validation_alias=_env("ITACHI_TASK_OFFLINE_AFTER_S"))
    task_heartbeat_s: float = Field(30.0, gt=0, validation_alias=_env("ITACHI_TASK_HEARTBEAT_S"))
    task_claim_timeout_s: float = Field(300.0, gt=0, validation_alias=_env("ITACHI_TASK_CLAIM_TIMEOUT_S"))
    task_overdue_grace_s: float = Field(120.0, ge=0, validation_alias=_env("ITACHI_TASK_OVERDUE_GRACE_S"))
    task_max_switches: int = Field(2, ge=0, validation_alias=_env("ITACHI_TASK_MAX_SWITCHES"))
    # Cost caps of chat users' tasks, in USD (0: none); a user's /budget overrides them (docs/telegram.md).
    task_cost_cap_usd: float = Field(5.0, ge=0, validation_alias=_env("ITACHI_TASK_COST_CAP_USD"))
    daily_cost_cap_usd: float = Field(25.0, ge=0, validation_alias=_env("ITACHI_DAILY_COST_CAP_USD"))
    # Telegram
    telegram_bot_token: str = Field("", repr=False, validation_alias=_env("TELEGRAM_BOT_TOKEN"))
    telegram_webhook_secret: str = Field("", repr=False, validation_alias=_env("TELEGRAM_WEBHOOK_SECRET"))
    telegram_allowed_users: UserIds = Field((), validation_alias=_env("TELEGRAM_ALLOWED_USERS"))
    # Allow-listed users who may set other users' cost caps (/budget ... <user id>).
    telegram_admin_users: UserIds = Field((), validation_alias=_env("TELEGRAM_ADMIN_USERS"))
    telegram_chat_id: int | None = Field(None, validation_alias=_env("TELEGRAM_CHAT_ID"))
    telegram_api_url: str = Field("https://api.telegram.org/bot", validation_alias=_env("TELEGRAM_API_URL"))
    # Plain text in a running task's topic: "steer" (into the running turn where the engine takes
    # input mid-turn) or "queue" (the task's next turn), as /steer and /queue do.
    telegram_task_text: Literal["steer", "queue"] = Field(
        "steer", validation_alias=_env("TELEGRAM_TASK_TEXT"))
    # The URL machines reach the API at, for the join commands invites print (else the request's).
    public_url: str = Field("", validation_alias=_env("ITACHI_PUBLIC_URL"))

    @field_validator("home", mode="before")
    @classmethod
    def _expand_home(cls, value: Any) -> Any:
        return itachi_home(value) if value else value

    @field_validator("api_keys", "telegram_allowed_users", "telegram_admin_users", mode="before")
    @classmethod
    def _split_csv(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @model_validator(mode="before")
    @classmethod
    def _derive_defaults(cls, data: Any) -> Any:
        """Fill what depends on other values: the embedding provider's model and dimension, and
        (without keys in the environment) the API key `itachi up` generated into config.json."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        if not _first(data, "ITACHI_API_KEYS", "ITACHI_API_KEY", "api_keys"):
            home = _first(data, "ITACHI_HOME", "home")
            home = itachi_home(home)
            data["api_keys"] = tuple(_config_file_keys(home / "config.json"))
        provider = _first(data, "ITACHI_EMBEDDING_PROVIDER", "embedding_provider") or (
            "openai" if _first(data, "OPENAI_API_KEY", "openai_api_key") else "local")
        data["embedding_provider"] = provider
        model, dim = _EMBEDDING_DEFAULTS.get(provider, _EMBEDDING_DEFAULTS["local"])
        if not _first(data, "ITACHI_EMBEDDING_MODEL", "embedding_model"):
            data["embedding_model"] = model
        if not _first(data, "ITACHI_EMBEDDING_DIM", "embedding_dim"):
            data["embedding_dim"] = dim
        return data

    @property
    def llm_enabled(self) -> bool:
        return bool(self.openai_api_key)

    @property
    def config_path(self) -> Path:
        return self.home / "config.json"

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (validated like the original)."""
        return type(self).model_validate({**self.model_dump(), **changes})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from `env` (default: the process environment), secrets resolved first."""
        env = os.environ if env is None else env
        if any(key.endswith("_SECRET_ID") for key in env):
            from chalicelib.kernel.secrets import resolve_secret_env

            env = resolve_secret_env(env)
        return cls.model_validate(_MappingSource(cls, env)())


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping instead of `os.environ`."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._mapping = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return dict(self._mapping)


def _first(data: Mapping[str, Any], *keys: str) -> Any:
    return next((data[k] for k in keys if data.get(k) not in (None, "")), None)


def _config_file_keys(path: Path) -> list[str]:
    key = read_json(path).get("api_key")
    return [key] if isinstance(key, str) and key else []
