"""`itachi agent`: the per-machine task agent.

Registers with a heartbeat (which creates the machine's SQS queue), heartbeats every 30 s,
long-polls its queue and acts on each message: claim and run a task, cancel one, or drive an
interactive session. Messages are hints; the API decides (a stale or duplicate task message
is refused at claim and deleted). On SIGTERM/SIGINT it kills its engines and reports itself
offline, which has the server retry or fail the tasks it was running.
"""

from __future__ import annotations

import fcntl
import logging
import signal
import threading
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import IO

from agent.agent_config import AgentConfig
from agent.agent_context import AgentContext, log
from agent.engines.process_tree import ProcessRegistry
from agent.installers.self_update import SelfRestart
from agent.queue_credentials import api_fetch, session_with, vended_credentials
from agent.ssh.registration import register_all
from agent.tasks.worktrees import WorktreeManager
from agent.version import VERSION
from agent.work_router import WorkRouter
from chalicelib.contracts.agent_api import HeartbeatRequest, Registration
from chalicelib.contracts.agent_vocabulary import MachineStatus
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.contracts.log_lines import JsonLineFormatter
from chalicelib.kernel.queues import SqsQueue

AGENT_VERSION = VERSION


class AgentDaemon:
    def __init__(self, config: AgentConfig, api: ApiClient, *, mode: str = "auto") -> None:
        self.config = config
        self.mode = mode  # local | aws | auto
        self.ctx = AgentContext(
            config=config, api=api, instance=uuid.uuid4().hex[:12],
            registry=ProcessRegistry(config.run_dir / "engines" / config.machine_id),
            worktrees=WorktreeManager(config.worktree_root, config.home / "repos", dict(config.repos),
                                      config.folder_roots))
        self.router = WorkRouter(self.ctx)
        self._heartbeat_s = config.heartbeat_s or 30.0
        self._queue_url: str | None = None
        self._lock_file: IO[str] | None = None
        self._restart: SelfRestart | None = None  # a /update or /restart under way

    # Lifecycle.
    def start(self) -> None:
        self._hold_lock()
        reaped = self.ctx.registry.reap_stale()
        if reaped:
            log.warning("killed %d engine process group(s) left by a previous agent", len(reaped))
        self._register(wait=True)
        register_all(self.ctx.api, self.config.home, self.config.env, self.config.machine_id)
        threading.Thread(target=self._heartbeats, name="heartbeat", daemon=True).start()
        threading.Thread(target=self._poll, name="poll", daemon=True).start()
        log.info("agent %s (%s) polling %s", self.config.machine_id, self.ctx.instance, self._queue_url)

    def run_forever(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.ctx.stopping.set())
        self.start()
        while not self.ctx.stopping.wait(1.0):
            pass
        self.shutdown()
        return 0

    def shutdown(self) -> None:
        self.ctx.stopping.set()
        self.router.stop_all()
        try:
            self._heartbeat(status="offline")
        except ApiError as exc:
            log.warning("offline heartbeat not sent: %s", exc)

    def _before_exec(self) -> None:
        """The new process takes the lock and the queue over; this one just lets go of them."""
        self.ctx.stopping.set()
        if self._lock_file is not None:
            self._lock_file.close()

    def _hold_lock(self) -> None:
        """One agent per machine id and state directory: it owns (and reaps) the engines recorded there."""
        path = self.config.run_dir / f"agent-{self.config.machine_id}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(path, "a")  # noqa: SIM115 (held for the process lifetime)
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SystemExit(f"an agent for machine {self.config.machine_id} already runs with "
                             f"{self.config.home}") from None

    # Registration and heartbeats.
    def _heartbeat(self, status: MachineStatus = "online") -> Registration:
        config = self.config
        if self._restart is not None and status == "online":
            status = "draining"  # no new task: the running ones end, then the agent restarts
        beat = HeartbeatRequest(
            config.machine_id, self.ctx.instance, status, self.router.active_tasks, config.max_concurrent,
            list(config.engine_priority), sorted(config.repos), sorted(set(config.repos.values())),
            _hostname(), AGENT_VERSION)
        return Registration.from_body(self.ctx.api.post("/api/machines/heartbeat", beat.to_body()))

    def _register(self, *, wait: bool) -> None:
        delay = 0.5
        while True:
            try:
                reg = self._heartbeat()
                break
            except ApiError as exc:
                if not wait or self.ctx.stopping.is_set():
                    raise
                log.warning("cannot register yet (%s); retrying", exc)
                self.ctx.stopping.wait(delay)
                delay = min(delay * 2, 10.0)
        self._adopt(reg)

    def _adopt(self, reg: Registration) -> None:
        if reg.engine_priority and tuple(reg.engine_priority) != self.config.engine_priority:
            log.info("engine order from the server: %s", ", ".join(reg.engine_priority))
            self.config = self.ctx.config = replace(self.config, engine_priority=tuple(reg.engine_priority))
        if reg.restart and self._restart is None:
            self._restart = SelfRestart(reg.restart.get("kind", "restart"), self.config.env,
                                        lambda: self.router.active_tasks, self.ctx.stopping,
                                        self._before_exec)
            self.router.draining = True
            self._restart.start()
        if self.config.heartbeat_s is None:
            self._heartbeat_s = float(reg.heartbeat_s or 30.0)
        endpoint = reg.sqs_endpoint_url
        if self.mode == "local" and not endpoint:
            raise SystemExit("the server runs on AWS SQS; start the agent with --aws")
        if self.mode == "aws":
            endpoint = None
        if reg.queue_url != self._queue_url:
            region = reg.region or "us-east-1"
            session = None
            if endpoint is None:  # AWS: the API's credentials for this queue, else boto3's chain
                try:
                    credentials = vended_credentials(api_fetch(self.ctx.api, self.config.machine_id))
                except ApiError as exc:
                    log.warning("no queue credentials yet (%s); asking again at the next heartbeat", exc)
                    return
                session = session_with(credentials, region) if credentials is not None else None
            # Local: the server names its moto server, which takes any credentials.
            self.ctx.queue = SqsQueue.at(reg.queue_url, region=region, endpoint_url=endpoint,
                                         session=session, connect_timeout_s=5,
                                         read_timeout_s=self.config.poll_wait_s + 20)
            self._queue_url = reg.queue_url

    def _heartbeats(self) -> None:
        while not self.ctx.stopping.wait(self._heartbeat_s):
            try:
                self._adopt(self._heartbeat())
            except ApiError as exc:
                log.warning("heartbeat failed: %s", exc)

    # The queue.
    def _poll(self) -> None:
        while not self.ctx.stopping.is_set():
            queue = self.ctx.queue
            if queue is None:
                time.sleep(1.0)
                continue
            try:
                messages = queue.receive(wait_s=self.config.poll_wait_s, max_messages=10,
                                         visibility_timeout_s=self.config.visibility_s)
            except Exception as exc:  # the queue endpoint is unreachable: keep trying
                log.warning("queue receive failed: %s", exc)
                self.ctx.stopping.wait(2.0)
                continue
            for message in messages:
                if self.ctx.stopping.is_set():
                    return
                try:
                    self.router.handle(message)
                except Exception:
                    log.exception("message %s not handled", message.message_id)

def _hostname() -> str:
    import socket

    return socket.gethostname()


def run_agent(home: Path, *, mode: str, machine_id: str | None = None) -> int:
    config = AgentConfig.load(home, machine_id=machine_id)
    handler = logging.StreamHandler()  # `itachi up` and `itachi join` send it to logs/agent.log
    handler.setFormatter(JsonLineFormatter("agent", machine_id=config.machine_id))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    api = ApiClient.configured(home)
    return AgentDaemon(config, api, mode=mode).run_forever()
