"""End to end: the /session picker walks the machine's folders through its agent, never above its roots.

`itachi up`'s stack in this process with its real agent subprocess (the fake Claude Code);
Telegram is the fake Bot API and every update arrives on the webhook. Each listing is asked on
the machine's queue and answered by the agent, which also refuses a crafted path outside its
configured roots.
"""

from __future__ import annotations

import json
from pathlib import Path

from chalicelib.contracts.machine_messages import FOLDER_LIST, MachineMessage
from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import telegram_stack


def test_the_picker_walks_the_machines_folders_and_never_leaves_its_roots(
        tmp_path: Path, database_url: str) -> None:
    src = tmp_path / "src"
    make_repo(src / "alpha")
    (src / "beta" / "inner").mkdir(parents=True)
    (tmp_path / "etc").mkdir()  # what ../../ from a root's child would reach
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}",
                        ITACHI_AGENT_ROOTS=str(src)) as t:
        t.post(message_update("/session laptop show me git status"))
        t.press("itachi --ds")
        thread = t.topic()

        def texts() -> list[str]:
            return t.fake.sent_texts(GROUP, thread)

        def reply(text: str, expect: str) -> str:
            seen = len(texts())
            t.post(message_update(text, thread_id=thread))
            return wait_for(lambda: next((m for m in texts()[seen:] if expect in m), None), timeout_s=60,
                            what=f"{expect!r} after {text!r}")

        top = wait_for(lambda: next((m for m in texts() if m.startswith("📂 Folders on laptop")), None),
                       timeout_s=60, what="the roots")
        inside = reply("1", f"📂 {src}")
        beta = reply("2", f"📂 {src}/beta")
        up = reply("..", f"📂 {src}\n")
        at_top = reply("..", "📂 Folders on laptop")
        no_higher = reply("..", "This is the top")
        typed = reply("../../etc", "Only the listed folders can be opened")
        with t.container.db.connection() as conn:
            (row,) = conn.execute("SELECT listing_id FROM telegram_folder_walks").fetchall()
        t.container.task_queues.send_to_machine("laptop", MachineMessage(  # a crafted request, past the bot
            FOLDER_LIST, listing_id=row["listing_id"], path=f"{src}/beta/../../etc").to_body())
        crafted = wait_for(lambda: next((m for m in texts() if m.startswith("⛔")), None), timeout_s=60,
                           what="the agent's refusal")
        reply("2", f"📂 {repo}")
        started = reply("0", "▶️ Session")
        (session,) = t.container.agent_sessions.list_sessions()
        wait_for(lambda: "echo: show me git status" in "\n".join(texts()), timeout_s=60,
                 what="the engine's answer in the topic")
        t.post(message_update("/close", thread_id=thread))
        wait_for(lambda: t.container.agent_sessions.get(session.id).status.value == "closed", timeout_s=60,
                 what="the session closed")

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
