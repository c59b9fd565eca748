"""/logs in Telegram: the last lines about a task from the local log files, secrets redacted."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

from tests.support.telegram_bot import GROUP, bot_harness, message_update

SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"


def test_logs_sends_a_tasks_last_lines_with_secrets_redacted(tmp_path: Path, database_url: str,
                                                             moto_endpoint: str) -> None:
    task, other = str(uuid.uuid4()), str(uuid.uuid4())
    stamp = time.strftime("%Y-%m-%d %H:%M:%S,000+0000", time.gmtime())
    logs = tmp_path / "home" / "logs"
    logs.mkdir(parents=True)
    (logs / "server.log").write_text("\n".join(json.dumps(line) for line in [
        {"level": "INFO", "message": "task created", "timestamp": stamp, "function": "api", "task_id": task},
        {"level": "INFO", "message": "task created", "timestamp": stamp, "function": "api", "task_id": other},
    ]) + "\n")
    (logs / "agent.log").write_text(json.dumps(
        {"level": "ERROR", "message": f"engine said: invalid key {SECRET}", "timestamp": stamp,
         "function": "agent", "task_id": task, "machine_id": "m1"}) + "\n")

    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as bot:
        bot.send(message_update(f"/logs {task[:8]}"))
        bot.send(message_update("/logs agent"))
        about_task, agent_only = bot.texts(chat_id=GROUP)[-2:]

    assert about_task.count("\n") == 1 and other not in about_task
    assert "api" in about_task and "task created" in about_task and "engine said: invalid key" in about_task
    assert SECRET not in about_task and SECRET not in agent_only
    assert agent_only.startswith(time.strftime("%Y-%m-%d", time.gmtime())) and "ERROR" in agent_only
