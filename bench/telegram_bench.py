"""Telegram benchmarks on the local stack: webhook acknowledgement, handling, and /task to progress.

`.venv/bin/python bench/telegram_bench.py [--acks 300] [--replies 50] [--tasks 10]`
(not `bench/telegram.py`: that name would shadow python-telegram-bot for mypy and for scripts)

Runs `itachi up`'s stack in this process (embedded Postgres in a temporary home, moto, the API
on its threaded server, the SQS consumers, the local agent with the fake engine from
tests/fakes) with Telegram played by the fake Bot API. Updates are posted to the webhook with
the secret header over one keep-alive connection, as Telegram does. Prints Markdown.

- ack: POST /telegram/webhook until its 200 (record update_id, enqueue; handlers run later),
  and the same work called in-process (the difference is the local HTTP server).
- reply: POST of /help until the fake Bot API received the bot's answer (queue, consumer, PTB).
- warm vs fresh: the handlers for one /help in-process, on the persistent loop versus a fresh
  `async with Application` per update.
- /task: POST of /task until the first agent progress message reached the task's topic, and
  until the result did (dispatch, agent claim, fake engine, event batches, outbox at 1.5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from infra.local.stack import LocalStack, StackOptions  # noqa: E402
from tests.fakes.fake_telegram import FakeTelegram  # noqa: E402
from tests.support.agent_harness import fake_engine_env, make_repo  # noqa: E402
from tests.support.telegram_bot import ALICE, GROUP, SECRET, message_update  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def row(name: str, values_s: list[float]) -> str:
    ms = [v * 1000 for v in values_s]
    return (f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {pct(ms, 0.95):.1f} | {max(ms):.1f} |")


def wait(probe: Callable[[], Any], timeout_s: float = 60.0, every_s: float = 0.002) -> Any:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(every_s)
    raise TimeoutError("benchmark step timed out")


class Webhook:
    def __init__(self, api_url: str) -> None:
        parsed = urlparse(api_url)
        self.conn = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port, timeout=30)

    def post(self, update: dict[str, Any]) -> float:
        body = json.dumps(update).encode()
        started = time.perf_counter()
        self.conn.request("POST", "/telegram/webhook", body=body, headers={
            "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": SECRET})
        response = self.conn.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        assert response.status == 200, response.status
        return elapsed


def sends_after(fake: FakeTelegram, before: int) -> bool:
    return len(fake.calls_to("sendMessage")) > before


def new_topics(fake: FakeTelegram, before: set[tuple[int, int]]) -> set[tuple[int, int]]:
    return set(fake.topics) - before


def topic_messages(fake: FakeTelegram, thread: int, count: int) -> bool:
    return len(fake.sent_texts(GROUP, thread)) >= count


def topic_has(fake: FakeTelegram, thread: int, marker: str) -> bool:
    return any(marker in text for text in fake.sent_texts(GROUP, thread))


def bench_acks(hook: Webhook, fake: FakeTelegram, count: int) -> list[float]:
    for _ in range(20):  # warm the route, the pool and the queue client
        hook.post(message_update("/help", chat_id=ALICE))
    return [hook.post(message_update("/help", chat_id=ALICE)) for _ in range(count)]


def bench_intake(stack: LocalStack, count: int) -> list[float]:
    """The webhook's own work, in-process: record the update_id and enqueue the update."""
    assert stack.container is not None
    intake = stack.container.telegram_intake
    times = []
    for _ in range(count):
        update = message_update("/help", chat_id=ALICE)
        started = time.perf_counter()
        intake.accept(update)
        times.append(time.perf_counter() - started)
    return times


def bench_replies(hook: Webhook, fake: FakeTelegram, count: int) -> list[float]:
    wait(lambda: not fake.sent_messages() or len(fake.sent_messages()) >= 1, 30)
    times = []
    for _ in range(count):
        before = len(fake.calls_to("sendMessage"))
        started = time.perf_counter()
        hook.post(message_update("/help", chat_id=ALICE))
        wait(partial(sends_after, fake, before))
        times.append(time.perf_counter() - started)
    return times


def bench_warm_vs_fresh(stack: LocalStack, warm_runs: int,
                        fresh_runs: int) -> tuple[list[float], list[float]]:
    import dataclasses

    from telegram import Update

    from chalicelib.telegram.adapters.telegram_gateway import LoopGateway
    from chalicelib.telegram.bot.handler_table import build_application

    container = stack.container
    assert container is not None
    gateway = container.telegram_gateway
    warm = []
    for _ in range(warm_runs):
        update = message_update("/help", chat_id=ALICE)
        started = time.perf_counter()
        gateway.process(update)
        warm.append(time.perf_counter() - started)

    async def fresh_once(update: dict[str, Any]) -> None:
        s = container.settings  # the handlers' Bot API calls go through this application's own bot
        services = dataclasses.replace(container.bot_services, telegram=LoopGateway(lambda: app.bot))
        app = build_application(s.telegram_bot_token, s.telegram_api_url, services)
        async with app:
            await app.process_update(Update.de_json(update, app.bot))

    fresh = []
    for _ in range(fresh_runs):
        update = message_update("/help", chat_id=ALICE)
        started = time.perf_counter()
        asyncio.run(fresh_once(update))
        fresh.append(time.perf_counter() - started)
    return warm, fresh


def started_event(stack: LocalStack, description: str) -> bool:
    assert stack.container is not None
    tasks = [t for t in stack.container.tasks.list_tasks(limit=5) if t.description == description]
    return bool(tasks) and any(e.kind == "started" for e in stack.container.tasks.events(tasks[0].id))


def bench_tasks(stack: LocalStack, hook: Webhook, fake: FakeTelegram,
                count: int) -> tuple[list[float], list[float], list[float], list[float]]:
    stored, first_progress, agent_line, result = [], [], [], []
    for i in range(count):
        topics_before = set(fake.topics)
        description = f"bench task {i} [fake:write=bench_{i}.txt]"
        started = time.perf_counter()
        hook.post(message_update(f"/task myproject {description}"))
        (key,) = wait(partial(new_topics, fake, topics_before))
        thread = key[1]
        try:
            wait(partial(started_event, stack, description), 120, every_s=0.01)
        except TimeoutError:
            assert stack.container is not None
            for task in stack.container.tasks.list_tasks(limit=3):
                print("stuck?", task.id[:8], task.status.value, task.description, task.machine_id,
                      [e.kind for e in stack.container.tasks.events(task.id)], file=sys.stderr)
            raise
        stored.append(time.perf_counter() - started)
        wait(partial(topic_messages, fake, thread, 2), 120)  # the header, then the first progress
        first_progress.append(time.perf_counter() - started)
        wait(partial(topic_has, fake, thread, "▶️"), 120)
        agent_line.append(time.perf_counter() - started)
        wait(partial(topic_has, fake, thread, "✅ Completed"), 120)
        result.append(time.perf_counter() - started)
    return stored, first_progress, agent_line, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acks", type=int, default=300)
    parser.add_argument("--replies", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=10)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="itachi-bench-telegram-"))
    home = root / "home"
    (home / "logs").mkdir(parents=True)
    repo = make_repo(root / "myproject")
    with FakeTelegram() as fake:
        env = {**os.environ, **fake_engine_env(root / "engine.log"), "ITACHI_HOME": str(home),
               "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP),
               "TELEGRAM_WEBHOOK_SECRET": SECRET, "ITACHI_MACHINE_ID": "bench",
               "ITACHI_AGENT_REPOS": f"myproject={repo}", "ITACHI_ENGINE_PRIORITY": "claude",
               "ITACHI_WORKTREE_POLICY": "remove"}
        stack = LocalStack(StackOptions(home=home, port=0, with_agent=True, env=env), say=lambda line: None)
        api_url = stack.start()
        try:
            assert stack.container is not None
            registry = stack.container.machine_registry
            wait(lambda: any(m["status"] == "online" for m in registry.list_machines()), 60)
            hook = Webhook(api_url)
            acks = bench_acks(hook, fake, args.acks)
            intake = bench_intake(stack, 100)
            time.sleep(3)  # let the consumer catch up with the acknowledged updates
            replies = bench_replies(hook, fake, args.replies)
            warm, fresh = bench_warm_vs_fresh(stack, 200, 30)
            stored, first, agent_line, done = bench_tasks(stack, hook, fake, args.tasks)
        finally:
            stack.stop()
    print("| measure | n | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    print(row("webhook acknowledgement (POST to 200)", acks))
    print(row("webhook's work in-process (record update_id, enqueue)", intake))
    print(row("/help: webhook to the bot's reply at the Bot API", replies))
    print(row("handlers for one update, persistent loop (warm)", warm))
    print(row("handlers for one update, fresh `async with Application`", fresh))
    print(row("/task: webhook to the agent's first progress event stored", stored))
    print(row("/task: webhook to the first progress message in its topic", first))
    print(row("/task: webhook to the agent's `▶️ started` line in its topic", agent_line))
    print(row("/task: webhook to the result in its topic (fake engine)", done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
