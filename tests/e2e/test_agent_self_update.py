"""`/update <machine>` from Telegram to a real agent of `itachi up` running from a git checkout:
the running task ends first, the agent pulls the new version, restarts, and reports it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from chalicelib.contracts.local_home import read_json
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.orchestration import client_for, new_task, wait_for
from tests.support.telegram_bot import ALICE, GROUP, message_update
from tests.support.up_process import UpProcess

pytestmark = pytest.mark.e2e
REPO_ROOT = Path(__file__).resolve().parents[2]
GIT = ["git", "-c", "user.name=Itachi Tests", "-c", "user.email=tests@itachi.invalid"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def test_update_from_telegram_brings_the_agent_back_with_the_new_version_without_losing_its_task(
        up_root: Path) -> None:
    tmp_path = up_root
    origin, checkout = tmp_path / "origin", tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(REPO_ROOT), str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    before = (checkout / "agent" / "version.py").read_text()
    assert 'VERSION = "0.1.0"' in before
    (origin / "agent" / "version.py").write_text(before.replace('"0.1.0"', '"0.1.1"'))
    git(origin, "commit", "-qam", "agent 0.1.1")

    home, repo = tmp_path / "home", make_repo(tmp_path / "repo")
    with FakeTelegram(forums=(GROUP,)) as fake:
        env = {**fake_engine_env(tmp_path / "engine.log"), "ITACHI_MACHINE_ID": "upd",
               "ITACHI_AGENT_HEARTBEAT_S": "1", "PYTHONPATH": str(checkout),
               "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP)}
        up = UpProcess(home, env=env, cwd=checkout)
        try:
            client = client_for(up.url, json.loads((home / "config.json").read_text())["api_key"])
            machine = wait_for(lambda: next((m for m in client.get("/api/machines")["machines"]
                                             if m["id"] == "upd" and m["status"] == "online"), None),
                               timeout_s=90, what="the agent online")
            agent_pid = read_json(home / "run" / "state.json")["agent_pid"]
            task = new_task(client, "[fake:sleep=8] [fake:write=done.txt]", repo=str(repo))
            wait_for(lambda: client.get(f"/api/tasks/{task['id']}")["status"] == "running", timeout_s=90,
                     what="the task to run")

            fake.push_update(message_update("/update upd"))
            back = wait_for(lambda: next((t for t in fake.sent_texts(chat_id=GROUP) if "back: version" in t),
                                         None), timeout_s=180, what="the agent to say it is back")
            done = client.get(f"/api/tasks/{task['id']}")
            after = next(m for m in client.get("/api/machines")["machines"] if m["id"] == "upd")
            agent_pid_after = read_json(home / "run" / "state.json")["agent_pid"]
        finally:
            up.stop()

    assert machine["agent_version"] == "0.1.0"
    assert back == "upd updated and back: version 0.1.0 -> 0.1.1"
    assert any("will update itself and restart once its running tasks end" in t
               for t in fake.sent_texts(chat_id=GROUP))
    assert (done["status"], done["attempts"]) == ("completed", 1)  # it finished before the restart
    assert after["agent_version"] == "0.1.1" and after["status"] == "online"
    assert agent_pid_after == agent_pid  # the same process, replaced in place: its supervisor saw no death
    assert (checkout / "agent" / "version.py").read_text().count('"0.1.1"') == 1
