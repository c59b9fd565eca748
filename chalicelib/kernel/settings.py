"""One frozen Settings object, read from the environment once per process."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_PORT = 8787


def default_home() -> Path:
    """Return the state directory: $ITACHI_HOME or ~/.local/share/itachi."""
    explicit = os.environ.get("ITACHI_HOME")
    if explicit:
        return Path(explicit).expanduser()
    return Path.home() / ".local" / "share" / "itachi"


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    return float(raw) if raw not in (None, "") else default


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    return int(raw) if raw not in (None, "") else default


@dataclass(frozen=True)
class Settings:
    """Deployment settings. Secrets are held in memory only, never logged (repr=False)."""

    home: Path
    stage: str = "local"
    database_url: str = field(default="", repr=False)
    api_keys: tuple[str, ...] = field(default=(), repr=False)
    aws_region: str = "us-east-1"
    sqs_endpoint_url: str | None = None
    queue_prefix: str = "itachi-local"
    max_body_bytes: int = 1_000_000
    # Database pool: a Lambda container serves one request at a time (min 0, max 2 there).
    db_pool_min: int = 1
    db_pool_max: int = 8
    # Embeddings
    embedding_provider: str = "local"  # local | openai
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dim: int = 384
    embedding_timeout_s: float = 2.0
    # Local model's torch threads (0 = one per core). One keeps a query's embedding fast on a small
    # machine that runs other work (docs/benchmarks.md, "Memory core"); raise it for bulk imports.
    embedding_threads: int = 1
    # LLM (OpenAI-compatible)
    openai_api_key: str = field(default="", repr=False)
    openai_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_daily_budget_usd: float = 1.0
    llm_daily_budget_tokens: int = 0  # 0 = no token cap, the dollar cap applies
    # Hybrid search
    # Chosen on LoCoMo (docs/benchmarks.md, "Memory core"); the seeds' 0.7/0.3 measured lower.
    search_vector_weight: float = 0.4
    search_text_weight: float = 0.6
    search_recency_half_life_days: float = 90.0
    search_recency_weight: float = 0.1
    # Telegram
    telegram_bot_token: str = field(default="", repr=False)
    telegram_webhook_secret: str = field(default="", repr=False)
    telegram_allowed_users: tuple[int, ...] = ()
    telegram_chat_id: int | None = None
    telegram_api_url: str = "https://api.telegram.org/bot"

    @property
    def llm_enabled(self) -> bool:
        return bool(self.openai_api_key)

    @property
    def config_path(self) -> Path:
        return self.home / "config.json"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from environment variables (and $ITACHI_HOME/config.json keys)."""
        env = os.environ if env is None else env
        if any(key.endswith("_SECRET_ID") for key in env):
            # Production: values live in Secrets Manager, named by VAR_SECRET_ID.
            from chalicelib.kernel.secrets import resolve_secret_env

            env = resolve_secret_env(env)
        home = Path(env["ITACHI_HOME"]).expanduser() if env.get("ITACHI_HOME") else default_home()
        keys = list(_csv(env.get("ITACHI_API_KEYS")) or _csv(env.get("ITACHI_API_KEY")))
        if not keys:
            keys.extend(_config_file_keys(home / "config.json"))
        # OpenAI embeddings when a key is set, unless the deployment pins the provider.
        provider = env.get("ITACHI_EMBEDDING_PROVIDER") or (
            "openai" if env.get("OPENAI_API_KEY") else "local"
        )
        default_model, default_dim = (
            ("text-embedding-3-small", 1536) if provider == "openai" else ("all-MiniLM-L6-v2", 384)
        )
        chat = env.get("TELEGRAM_CHAT_ID")
        return cls(
            home=home,
            stage=env.get("ITACHI_STAGE", "local"),
            database_url=env.get("DATABASE_URL", ""),
            api_keys=tuple(keys),
            aws_region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            sqs_endpoint_url=env.get("ITACHI_SQS_ENDPOINT") or None,
            queue_prefix=env.get("ITACHI_QUEUE_PREFIX", "itachi-local"),
            max_body_bytes=_int(env, "ITACHI_MAX_BODY_BYTES", 1_000_000),
            db_pool_min=_int(env, "ITACHI_DB_POOL_MIN", 1),
            db_pool_max=_int(env, "ITACHI_DB_POOL_MAX", 8),
            embedding_provider=provider,
            embedding_model=env.get("ITACHI_EMBEDDING_MODEL", default_model),
            embedding_dim=_int(env, "ITACHI_EMBEDDING_DIM", default_dim),
            embedding_timeout_s=_float(env, "ITACHI_EMBEDDING_TIMEOUT_S", 2.0),
            embedding_threads=_int(env, "ITACHI_EMBEDDING_THREADS", 1),
            openai_api_key=env.get("OPENAI_API_KEY", ""),
            openai_base_url=env.get("OPENAI_BASE_URL") or None,
            llm_model=env.get("ITACHI_LLM_MODEL", "gpt-4o-mini"),
            llm_daily_budget_usd=_float(env, "ITACHI_LLM_DAILY_BUDGET_USD", 1.0),
            llm_daily_budget_tokens=_int(env, "ITACHI_LLM_DAILY_BUDGET_TOKENS", 0),
            search_vector_weight=_float(env, "ITACHI_SEARCH_VECTOR_WEIGHT", 0.4),
            search_text_weight=_float(env, "ITACHI_SEARCH_TEXT_WEIGHT", 0.6),
            search_recency_half_life_days=_float(env, "ITACHI_SEARCH_RECENCY_HALF_LIFE_DAYS", 90.0),
            search_recency_weight=_float(env, "ITACHI_SEARCH_RECENCY_WEIGHT", 0.1),
            telegram_bot_token=env.get("TELEGRAM_BOT_TOKEN", ""),
            telegram_webhook_secret=env.get("TELEGRAM_WEBHOOK_SECRET", ""),
            telegram_allowed_users=tuple(int(u) for u in _csv(env.get("TELEGRAM_ALLOWED_USERS"))),
            telegram_chat_id=int(chat) if chat else None,
            telegram_api_url=env.get("TELEGRAM_API_URL", "https://api.telegram.org/bot"),
        )


def _config_file_keys(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return []
    key = data.get("api_key") if isinstance(data, dict) else None
    return [key] if isinstance(key, str) and key else []
