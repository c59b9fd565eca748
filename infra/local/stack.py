"""`itachi up`: the whole system on one machine, in the foreground.

Embedded Postgres (or $DATABASE_URL), migrations, moto's SQS, the API on a threaded server,
the scheduler, the SQS-to-handler dispatcher and the local agent. SIGINT/SIGTERM stop every
part in reverse order, so no Postgres server is left behind.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chalicelib.bootstrap import Container, build, set_container
from chalicelib.kernel.migrations import apply_migrations
from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.settings import Settings
from chalicelib.memory.adapters.embedders import warm_up_in_background
from infra.local.agent_supervisor import AgentSupervisor
from infra.local.api_server import ApiServer
from infra.local.home import RunLock, ensure_config, write_private_json
from infra.local.moto_server import spawn_moto, wait_for_moto
from infra.local.postgres import start_postgres
from infra.local.postgres_watch import PostgresWatch, keep_values_out_of_the_log
from infra.local.processes import http_ok, stop, wait_until
from infra.local.scheduler import Scheduler
from infra.local.sqs_dispatcher import SqsDispatcher

READY_LINE = "Itachi API ready on {url}"
CONSOLE_LINE = "Web console: {url}/console (sign in with the API key, or run `itachi console` for a link)"


@dataclass
class StackOptions:
    home: Path
    port: int = 8787
    database_url: str | None = None
    with_agent: bool = True
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))


@dataclass
class LocalStack:
    options: StackOptions
    say: Callable[[str], None] = print
    container: Container | None = None
    api: ApiServer | None = None
    _lock: RunLock | None = None
    _pg: Any = None
    _pg_watch: PostgresWatch | None = None
    _moto: subprocess.Popen[bytes] | None = None
    _agent: AgentSupervisor | None = None
    _endpoint: str = ""
    _scheduler: Scheduler | None = None
    _dispatcher: SqsDispatcher | None = None
    _poller: Any = None  # Telegram long polling (local mode)
    _log_file: Any = None  # the handler writing logs/server.log

    def start(self) -> str:
        """Bring every part up; return the API URL once /health answers."""
        home = self.options.home
        lock = RunLock(home)
        lock.acquire()  # raises AlreadyRunning: then nothing of ours exists to stop
        self._lock = lock
        try:
            return self._start(home)
        except BaseException:
            self.stop()
            raise

    def _start(self, home: Path) -> str:
        from infra.local.server_log import log_server_to

        self._log_file = log_server_to(home / "logs")
        # moto starts in its own process meanwhile: Postgres, migrations and `import app` don't need it.
        self._moto, endpoint = spawn_moto()
        url = self.options.database_url
        if not url:
            self._pg, url = start_postgres(home)
            keep_values_out_of_the_log(url)
            self._pg_watch = PostgresWatch(self._pg, home / "pgdata", say=self.say)
            self._pg_watch.start()
        base = Settings.from_env({**self.options.env, "ITACHI_HOME": str(home)})
        # Bind first so that port 0 (tests) resolves before the config is written.
        from app import app

        self.api = ApiServer(app, port=self.options.port, max_body_bytes=base.max_body_bytes)
        config = ensure_config(home, self.api.url)
        self._moto, endpoint = wait_for_moto(self._moto, endpoint)
        settings = base.replace(
            home=home, database_url=url, sqs_endpoint_url=endpoint,
            api_keys=(config["api_key"], *base.api_keys),
        )
        apply_migrations(url, embedding_dim=settings.embedding_dim,
                         embedding_model=settings.embedding_model)
        self.container = build(settings)
        set_container(self.container)
        queues = self.container.queues
        queues.ensure(QUEUES[0])  # builds the client once, then the rest side by side
        with concurrent.futures.ThreadPoolExecutor(8, "queue-ensure") as pool:
            list(pool.map(queues.ensure, QUEUES[1:]))
        self.api.start()
        wait_until(lambda: http_ok(f"{self.api.url}/health"), timeout_s=30, what="API")  # type: ignore[union-attr]
        self.container.db.ping()
        # The ready line does not wait for the embedding model: until it is loaded, searches answer
        # from full text at once (`degraded: "embedding_loading"`) and writes wait for it.
        warm_up_in_background(self.container.embedder)
        self._scheduler = Scheduler(region=settings.aws_region)
        self._scheduler.start()
        self._dispatcher = SqsDispatcher(self.container.queues)
        self._dispatcher.start()
        if settings.telegram_bot_token and not settings.telegram_webhook_secret:
            from infra.local.telegram_poller import start_polling

            container = self.container
            self._poller = start_polling(container.telegram_gateway, container.telegram_intake.accept,
                                         say=self.say)
        self._endpoint = endpoint
        self._write_state(home)
        if self.options.with_agent and importlib.util.find_spec("agent.daemon") is not None:
            self._agent = self._supervise_agent(home)
        return self.api.url

    def _supervise_agent(self, home: Path) -> AgentSupervisor:
        from infra.local.processes import spawn

        env = {**self.options.env, "ITACHI_HOME": str(home)}

        def start() -> subprocess.Popen[bytes]:
            with open(home / "logs" / "agent.log", "ab") as log:  # the child keeps its own copy
                return spawn([sys.executable, "-m", "agent.cli", "agent", "--local"], env=env,
                             stdout=log, stderr=subprocess.STDOUT)

        supervisor = AgentSupervisor(start, home / "run" / "engines", say=self.say,
                                     on_start=lambda pid: self._write_state(home, agent_pid=pid))
        supervisor.start()
        return supervisor

    def _write_state(self, home: Path, agent_pid: int | None = None) -> None:
        assert self.api is not None
        write_private_json(home / "run" / "state.json", {
            "pid": os.getpid(),
            "api_url": self.api.url,
            "sqs_endpoint": self._endpoint,
            "database": "external" if self.options.database_url else "embedded",
            "agent_pid": agent_pid,
            "started_at": time.time(),
        })

    def stop(self) -> None:
        """Stop every part in reverse order; safe to call more than once."""
        if self._poller is not None:
            self._poller.stop()
            self._poller = None
        if self._agent is not None:
            self._agent.stop()
            self._agent = None
        for part in (self._dispatcher, self._scheduler):
            if part is not None:
                part.stop()
        self._dispatcher = self._scheduler = None
        if self.api is not None:
            self.api.stop()
            self.api = None
        if self.container is not None:
            self.container.close()
            set_container(None)
            self.container = None
        stop(self._moto)
        self._moto = None
        if self._pg_watch is not None:
            self._pg_watch.stop()
            self._pg_watch = None
        if self._pg is not None:
            self._pg.cleanup()
            self._pg = None
        if self._log_file is not None:
            from infra.local.server_log import stop_logging

            stop_logging(self._log_file)
            self._log_file = None
        if self._lock is not None:
            (self.options.home / "run" / "state.json").unlink(missing_ok=True)
            self._lock.release()
            self._lock = None


def run_forever(options: StackOptions) -> int:
    """Run the stack in the foreground until SIGINT or SIGTERM."""
    (options.home / "logs").mkdir(parents=True, exist_ok=True)
    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    stack = LocalStack(options)
    try:
        url = stack.start()
        print(READY_LINE.format(url=url), flush=True)
        print(CONSOLE_LINE.format(url=url), flush=True)
        while not stopping.wait(1.0):
            pass
    finally:
        print("Stopping Itachi...", flush=True)
        stack.stop()
    return 0
