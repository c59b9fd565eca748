"""/ssh and /exec end to end: the bot, the API, a real agent process, paramiko and a real sshd."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig
from tests.support.agent_harness import AgentHarness, harness, pid_alive
from tests.support.orchestration import wait_for
from tests.support.sshd import Sshd
from tests.support.telegram_bot import (
    GROUP,
    MALLORY,
    BotHarness,
    bot_harness,
    callback_update,
    message_update,
)


@dataclass
class Stack:
    bot: BotHarness
    agents: AgentHarness
    sshd: Sshd
    home: Path

    def texts(self) -> list[str]:
        self.bot.flush()
        return self.bot.texts(chat_id=GROUP)

    def wait_text(self, needle: str, timeout_s: float = 60) -> str:
        return wait_for(lambda: next((t for t in self.texts() if needle in t), None), timeout_s=timeout_s,
                        what=f"a message with {needle!r}; got {self.bot.texts(chat_id=GROUP)}")


def _ssh_add(home: Path, api_url: str, sshd: Sshd, *extra: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
    env.update(ITACHI_HOME=str(home), ITACHI_API_URL=api_url, ITACHI_API_KEY="test-key",
               ITACHI_MACHINE_ID="laptop")
    argv = ["ssh", "add", "buildbox", "--host", "127.0.0.1", "--port", str(sshd.port), "--user", sshd.user,
            "--key", str(sshd.client_key), "--trust", "--machine", "buildbox", *extra]
    done = subprocess.run([sys.executable, "-m", "agent.cli", *argv], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Registered buildbox with the server" in done.stdout, done.stderr


def press_run(stack: Stack) -> None:
    (question,) = [m for m in stack.bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]
    run_it = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    stack.bot.send(callback_update(run_it, question))


@pytest.fixture
def stack(tmp_path: Path, database_url: str, moto_endpoint: str, sshd: Sshd) -> Iterator[Stack]:
    from app import app
    from infra.local.api_server import ApiServer

    with bot_harness(tmp_path / "server", database_url, moto_endpoint) as bot:
        server = ApiServer(app, port=0, max_body_bytes=bot.container.settings.max_body_bytes)
        server.start()
        client = ApiClient(ClientConfig(tmp_path, server.url, "test-key"))
        try:
            for agents in harness(tmp_path / "agents", server.url, "test-key", client, bot.container.queues):
                home = tmp_path / "agents" / "home-laptop"
                home.mkdir(parents=True)
                _ssh_add(home, server.url, sshd, "--allow", "uname", "--allow", "echo")
                agents.start_agent("laptop")
                yield Stack(bot, agents, sshd, home)
        finally:
            server.stop()


def test_exec_runs_on_the_machine_over_ssh_and_streams_its_output(stack: Stack) -> None:
    stack.bot.send(message_update("/exec @buildbox echo first && echo second"))  # `&&`: not plain, confirm
    (question,) = [m for m in stack.bot.fake.sent_messages(chat_id=GROUP) if m.get("reply_markup")]
    assert "not on the target's command allow-list" in question["text"]
    run_it = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]

    stack.bot.send(callback_update(run_it, question))

    stack.wait_text("exit code")
    texts = stack.texts()
    assert texts[0].endswith("Run it anyway?")
    story = "\n".join(texts[1:])  # the stream packs what arrived together into one message
    assert story.startswith("🖥 buildbox (laptop connects)\n$ echo first && echo second")
    assert story.index("first\nsecond") < story.index("✅ exit code 0")
    stack.bot.send(callback_update(run_it, question))  # a second press runs nothing more
    assert stack.bot.fake.calls_to("answerCallbackQuery")[-1]["text"] == "This command was already started."


def test_an_allowed_command_runs_at_once_and_a_failure_reports_its_exit_code(stack: Stack) -> None:
    stack.bot.send(message_update("/ssh buildbox echo fine"))
    stack.wait_text("✅ exit code 0")
    stack.bot.send(message_update("/ssh buildbox uname -s; exit 3"))
    press_run(stack)
    assert stack.wait_text("❌ exit code 3")
    assert any("Linux" in t for t in stack.texts())


def test_a_changed_host_key_is_refused_and_a_timeout_kills_the_remote_command(stack: Stack) -> None:
    pid_file = stack.home / "remote.pid"
    stack.bot.send(message_update(f"/exec @buildbox --timeout 3 sleep 300 & echo $! > {pid_file}; wait"))
    press_run(stack)
    assert stack.wait_text("⏱ timed out after 3s; the remote command was killed")
    pid = int(pid_file.read_text())
    wait_for(lambda: not pid_alive(pid), what="the remote sleep to be killed", timeout_s=30)

    pinned = stack.sshd.host_fingerprint
    stack.sshd.rotate_host_key()
    stack.bot.send(message_update("/ssh buildbox echo never"))

    refused = stack.wait_text("🔒 refused")
    assert f"pinned {pinned}, presented {stack.sshd.host_fingerprint}" in refused
    assert not any(t == "never\n" for t in stack.texts())


def test_a_stranger_cannot_run_a_command(stack: Stack) -> None:
    stack.bot.send(message_update("/ssh buildbox echo hi", user_id=MALLORY))
    stack.bot.flush()
    assert stack.bot.container.ssh_runs.recent() == []
