"""End to end: the /session picker walks the machine's folders through its agent, never above its roots.

`itachi up`'s stack in this process with its real agent subprocess (the fake Claude Code);
Telegram is the fake Bot API and every update arrives on the webhook. Each listing is asked on
the machine's queue and answered by the agent, which also refuses a crafted path outside its
configured roots.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

from chalicelib.contracts.machine_messages import FOLDER_LIST, MachineMessage
from infra.local.stack import LocalStack, StackOptions
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import fake_engine_env, make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import ALICE, GROUP, SECRET, callback_update, message_update


def post_update(api_url: str, update: dict[str, object]) -> None:
    request = urllib.request.Request(f"{api_url}/telegram/webhook", data=json.dumps(update).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-Telegram-Bot-Api-Secret-Token": SECRET})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_the_picker_walks_the_machines_folders_and_never_leaves_its_roots(
        tmp_path: Path, database_url: str) -> None:
    src = tmp_path / "src"
    make_repo(src / "alpha")
    (src / "beta" / "inner").mkdir(parents=True)
    (tmp_path / "etc").mkdir()  # what ../../ from a root's child would reach
    repo = make_repo(tmp_path / "myproject")
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    with FakeTelegram(forums=(GROUP,)) as fake:
        env = {**os.environ, **fake_engine_env(tmp_path / "engine.log"), "ITACHI_HOME": str(home),
               "TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.base_url,
               "TELEGRAM_ALLOWED_USERS": str(ALICE), "TELEGRAM_CHAT_ID": str(GROUP),
               "TELEGRAM_WEBHOOK_SECRET": SECRET, "ITACHI_MACHINE_ID": "laptop",
               "ITACHI_AGENT_REPOS": f"myproject={repo}", "ITACHI_AGENT_ROOTS": str(src),
               "ITACHI_ENGINE_PRIORITY": "claude", "ITACHI_AGENT_POLL_S": "1",
               "ITACHI_AGENT_HEARTBEAT_S": "1"}
        options = StackOptions(home=home, port=0, database_url=database_url, with_agent=True, env=env)
        stack = LocalStack(options, say=lambda line: None)
        api_url = stack.start()
        try:
            container = stack.container
            assert container is not None
            wait_for(lambda: any(m["id"] == "laptop" and m["status"] == "online"
                                 for m in container.machine_registry.list_machines()),
                     timeout_s=60, what="the local agent online")
            post_update(api_url, message_update("/session laptop show me git status"))
            picker = wait_for(lambda: [m for m in fake.sent_messages(GROUP) if m.get("reply_markup")],
                              what="the picker")[-1]
            markup = picker["reply_markup"]
            rows = (json.loads(markup) if isinstance(markup, str) else markup)["inline_keyboard"]
            post_update(api_url, callback_update(rows[0][0]["callback_data"], picker))
            (thread,) = wait_for(lambda: [t for (c, t) in fake.topics if c == GROUP], what="the topic")

            def texts() -> list[str]:
                return fake.sent_texts(GROUP, thread)

            def reply(text: str, expect: str) -> str:
                seen = len(texts())
                post_update(api_url, message_update(text, thread_id=thread))
                return wait_for(lambda: next((t for t in texts()[seen:] if expect in t), None), timeout_s=60,
                                what=f"{expect!r} after {text!r}")

            top = wait_for(lambda: next((t for t in texts() if t.startswith("📂 Folders on laptop")), None),
                           timeout_s=60, what="the roots")
            inside = reply("1", f"📂 {src}")
            beta = reply("2", f"📂 {src}/beta")
            up = reply("..", f"📂 {src}\n")
            at_top = reply("..", "📂 Folders on laptop")
            no_higher = reply("..", "This is the top")
            typed = reply("../../etc", "Only the listed folders can be opened")
            with container.db.connection() as conn:
                (row,) = conn.execute("SELECT listing_id FROM telegram_folder_walks").fetchall()
            container.task_queues.send_to_machine("laptop", MachineMessage(  # a crafted request, past the bot
                FOLDER_LIST, listing_id=row["listing_id"], path=f"{src}/beta/../../etc").to_body())
            crafted = wait_for(lambda: next((t for t in texts() if t.startswith("⛔")), None), timeout_s=60,
                               what="the agent's refusal")
            reply("2", f"📂 {repo}")
            started = reply("0", "▶️ Session")
            (session,) = container.agent_sessions.list_sessions()
            wait_for(lambda: "echo: show me git status" in "\n".join(texts()), timeout_s=60,
                     what="the engine's answer in the topic")
            post_update(api_url, message_update("/close", thread_id=thread))
            wait_for(lambda: container.agent_sessions.get(session.id).status.value == "closed", timeout_s=60,
                     what="the session closed")
        finally:
            stack.stop()

    assert top.splitlines()[1:3] == [f"1. {src}", f"2. {repo} (git)"]
    assert inside.splitlines()[1:4] == ["0. ▶️ start here", "1. alpha (git)", "2. beta"]
    assert "1. inner" in beta and up.startswith(f"📂 {src}\n") and "2. " in at_top
    assert no_higher == "This is the top: the machine's configured folders."
    assert typed.startswith("Only the listed folders can be opened.")
    assert crafted == f"⛔ {src}/beta/../../etc: outside this machine's configured folders"
    assert (session.machine_id, session.repo, session.project, session.engine) == (
        "laptop", str(repo), "myproject", "claude")
    assert started.startswith(f"▶️ Session {session.id[:8]} starting in {repo} with itachi --ds.")
    starts = [json.loads(line) for line in (tmp_path / "engine.log").read_text().splitlines()]
    assert {s["cwd"] for s in starts if s["event"] == "start"} == {str(repo)}
