"""What each function may reach: the secrets it reads and the queues it sends to (least privilege).

One row per function, keyed by its handler ("module:function" from the queue or schedule table,
or `api` / `migrations`). Rendering fails for a table handler without a row, so a new consumer
or schedule gets exactly the access someone wrote down for it. A function's role allows
`GetSecretValue` on its secrets only, and its environment names only those; it may send to the
queues listed (`machine-*`: the per-machine agent queues), and only the API creates machine
queues; only the API assumes the role that vends agents their queue credentials. Why each row
holds what it holds:

- a function that changes tasks publishes their events to Telegram topics when the bot token is
  set (`Container.task_event_publisher`), so it reads the bot token and wakes `telegram-outbox`;
- a function that talks to Telegram builds the bot application, whose handlers' composition
  builds the embedder, so it reads the OpenAI key as well (`Container.bot_services`);
- memory, lessons and the LLM need the OpenAI key; only the API checks API keys and the webhook
  secrets (Telegram's and GitHub's), and it comments on GitHub issues with the GitHub token.
"""

from __future__ import annotations

from dataclasses import dataclass

DB = "DATABASE_APP"  # the application's login (not a superuser), as the function's DATABASE_URL
MASTER = "DATABASE_URL"  # the master login: the migrations function only
API_KEYS = "ITACHI_API_KEYS"
WEBHOOK = "TELEGRAM_WEBHOOK_SECRET"
BOT = "TELEGRAM_BOT_TOKEN"
OPENAI = "OPENAI_API_KEY"
GITHUB = "GITHUB_TOKEN"
GITHUB_HOOK = "GITHUB_WEBHOOK_SECRET"
MACHINES = "machine-*"

API = "api"
MIGRATIONS = "migrations"


@dataclass(frozen=True)
class Access:
    secrets: tuple[str, ...]  # the settings (SecretSpec.var) whose secrets the function reads
    sends: tuple[str, ...] = ()  # queue keys it sends to; MACHINES for the agents' queues
    creates_machine_queues: bool = False
    reads_logs: bool = False  # FilterLogEvents on the stack's function log groups (/logs)
    reads_queue_depths: bool = False  # GetQueueAttributes on the table's queues and their DLQs
    puts_health_metrics: bool = False  # cloudwatch:PutMetricData in the Itachi/Health namespace
    assumes_machine_role: bool = False  # sts:AssumeRole of the machine role (infra/aws/agents.py)


ACCESS: dict[str, Access] = {
    API: Access((DB, API_KEYS, WEBHOOK, BOT, OPENAI, GITHUB_HOOK, GITHUB),
                ("dispatch", "telegram-updates", "telegram-outbox", "ingest", MACHINES),
                creates_machine_queues=True, assumes_machine_role=True),
    MIGRATIONS: Access((MASTER, DB)),
    "functions.dispatch_consumer:handler": Access((DB, BOT), (MACHINES, "telegram-outbox")),
    "functions.telegram_consumer:handler": Access((DB, BOT, OPENAI),
                                                  ("dispatch", "telegram-outbox", MACHINES), reads_logs=True),
    "functions.telegram_outbox:handler": Access((DB, BOT, OPENAI), ("telegram-outbox",)),
    "functions.ingest_consumer:handler": Access((DB, OPENAI)),
    "functions.cleanup:handler": Access((DB,)),
    "functions.reminders:handler": Access((DB, BOT, OPENAI)),
    "functions.review_digest:handler": Access((DB, BOT, OPENAI)),
    "functions.telegram_outbox:sweep": Access((DB, BOT), ("telegram-outbox",)),
    "functions.task_sweep:handler": Access((DB, BOT), ("dispatch", "telegram-outbox")),
    "functions.agent_lifecycle:handler": Access((DB, BOT), ("dispatch", "telegram-outbox", MACHINES)),
    "functions.agent_lifecycle:cron": Access((DB, BOT), ("dispatch", "telegram-outbox", MACHINES)),
    "functions.effectiveness_decay:handler": Access((DB, OPENAI)),
    "functions.embed_pending:handler": Access((DB, OPENAI)),
    "functions.reflection:handler": Access((DB, OPENAI)),
    "functions.search_facts:handler": Access((DB, OPENAI)),
    # Proposals go to Telegram; the orient call uses the LLM; DLQ depths are read.
    "functions.brain_loop:handler": Access((DB, BOT, OPENAI), reads_queue_depths=True),
    # Alerts go to Telegram (the bot's handlers are not built: no OpenAI key needed).
    "functions.health_monitor:handler": Access((DB, BOT), reads_queue_depths=True, puts_health_metrics=True),
    # The LLM reducer when the key is set, the deterministic one otherwise.
    "functions.memory_eviction:handler": Access((DB, OPENAI)),
    # Code intelligence: the memory write path embeds, and four of them ask the LLM.
    "functions.codeintel:synthesize_sessions": Access((DB, OPENAI)),
    "functions.codeintel:analyze_edits": Access((DB, OPENAI)),
    "functions.codeintel:repo_expertise": Access((DB, OPENAI)),
    "functions.codeintel:extract_style": Access((DB, OPENAI)),
    "functions.codeintel:cross_project": Access((DB, OPENAI)),
    "functions.codeintel:index_transcripts": Access((DB, OPENAI)),
    "functions.codeintel:github_sync": Access((DB, GITHUB)),
}


class AccessError(LookupError):
    """A function has no row in the access table."""


def access_for(handler: str) -> Access:
    try:
        return ACCESS[handler]
    except KeyError:
        raise AccessError(f"{handler} has no row in infra/aws/access.py: write down which secrets it "
                          f"reads and which queues it sends to") from None
