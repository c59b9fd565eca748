"""The brain under test: real Postgres, moto's SQS, the bot on FakeTelegram, the LLM on FakeOpenAI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container
from chalicelib.tasks.domain.machine_records import Heartbeat
from chalicelib.tasks.domain.task_model import NewTask, Task, TaskOutcome, TaskResult
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness

FAILURE = "ImportError: cannot import name 'session' from 'auth'"


@dataclass
class Brain:
    bot: BotHarness
    llm: FakeOpenAI

    @property
    def container(self) -> Container:
        return self.bot.container

    def llm_calls(self) -> int:
        return len(self.llm.requests_to(CHAT_PATH))

    def proposal_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.bot.fake.sent_messages(chat_id=GROUP)
                if "inline_keyboard" in (m.get("reply_markup") or {})]

    def rank_first(self, title: str = "Retry the login fix") -> None:
        """The LLM's next orient answer: observation 0 first."""
        self.llm.script_chat(json.dumps({"ranked": [
            {"index": 0, "title": title, "rationale": "It failed three times the same way.",
             "priority": 1}]}))


def heartbeat(c: Container, instance: str, project: str = "web") -> None:
    c.machine_registry.heartbeat(Heartbeat("m1", "online", instance, 0, 1, ("claude",), (project,), ()))


def fail_three_times(c: Container, project: str = "web",
                     description: str = "fix the login redirect") -> Task:
    """One task whose three attempts fail alike: two agents die under it, the third reports failure."""
    heartbeat(c, "agent-0", project)
    task = c.tasks.create(NewTask(project, description, max_attempts=3))
    for attempt in (1, 2, 3):
        c.task_dispatcher.dispatch(task.id)
        current = c.tasks.get(task.id)
        c.task_runs.claim(task.id, "m1", current.dispatch_seq, f"agent-{attempt - 1}")
        c.task_runs.record_outcome(TaskOutcome(task.id, attempt, project, "failure", summary=FAILURE))
        if attempt < 3:
            heartbeat(c, f"agent-{attempt}", project)  # a new agent process: the attempt is requeued
        else:
            c.task_runs.finish(task.id, "m1", 3, TaskResult(status="failed", error=FAILURE))
    return c.tasks.get(task.id)


@pytest.fixture
def brain(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[Brain]:
    with FakeOpenAI() as llm, bot_harness(tmp_path / "home", database_url, moto_endpoint,
                                          openai_api_key="sk-test", openai_base_url=llm.base_url,
                                          embedding_provider="local") as bot:
        yield Brain(bot, llm)
