"""End to end: `itachi up` runs a task with the real Claude Code CLI against a fake model.

`itachi up` is a real subprocess (temporary ITACHI_HOME, port 0); its local agent starts the
pinned Claude Code CLI in the task's worktree, with ANTHROPIC_BASE_URL (from the environment
`itachi up` was given) pointing at FakeAnthropic, whose scripted reply writes a file.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.agent_harness import make_repo
from tests.support.claude_cli import claude_env, ensure_claude_cli
from tests.support.orchestration import client_for, wait_for
from tests.support.up_process import UpProcess

pytestmark = pytest.mark.e2e
TERMINAL = {"completed", "failed", "cancelled", "timed_out"}


def test_a_task_runs_the_real_claude_cli_in_its_worktree_and_reports_everything(tmp_path: Path,
                                                                              up_root: Path) -> None:
    claude = ensure_claude_cli()
    repo = make_repo(tmp_path / "repo")
    home = up_root / "home"
    script = [Reply.tool_use("Write", {"file_path": "hello.txt", "content": "hello from the fake model\n"},
                             text="Writing hello.txt."),
              Reply.text("Created hello.txt.")]
    with FakeAnthropic(script) as fake:
        env = {**claude_env(fake.base_url, tmp_path / "claude-config"),
               "ITACHI_ENGINE_CLAUDE_COMMAND": str(claude), "ITACHI_MACHINE_ID": "e2e-box"}
        (tmp_path / "claude-config").mkdir()
        up = UpProcess(home, env=env)
        try:
            key = json.loads((home / "config.json").read_text())["api_key"]
            client = client_for(up.url, key)
            wait_for(lambda: any(m["id"] == "e2e-box" and m["status"] == "online"
                                 for m in client.get("/api/machines")["machines"]),
                     timeout_s=60, what="the local agent online")
            task = client.post("/api/tasks", {"description": "Create hello.txt saying hello.",
                                              "project": "e2e", "repo": str(repo), "engine": "claude"})
            done = wait_for(lambda: (t := client.get(f"/api/tasks/{task['id']}"))["status"] in TERMINAL and t,
                            timeout_s=120, what="the task to finish")
            events = client.get(f"/api/tasks/{task['id']}/events", limit=1000)["events"]
        finally:
            up.stop()

    assert done["status"] == "completed", (done, (home / "logs" / "agent.log").read_text()[-3000:])
    assert done["files_changed"] == ["hello.txt"]
    assert done["result_summary"] == "Created hello.txt."
    assert done["machine_id"] == "e2e-box" and done["current_engine"] == "claude"
    worktree = Path(done["worktree"])
    assert (worktree / "hello.txt").read_text() == "hello from the fake model\n"
    branch_file = subprocess.run(["git", "show", f"{done['branch']}:hello.txt"], cwd=repo, check=True,
                                 capture_output=True, text=True).stdout
    assert branch_file == "hello from the fake model\n"
    assert subprocess.run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=worktree, capture_output=True,
                          text=True).stdout.strip() == done["branch"]
    kinds = [e["kind"] for e in events]
    assert kinds[:3] == ["created", "dispatched", "started"] and kinds[-1] == "completed"
    assert {"init", "text", "tool_use", "result", "engine_started", "engine_exited"} <= set(kinds)
    assert any(e["kind"] == "tool_use" and e["text"] == "Write hello.txt" for e in events)
    assert fake.remaining == 0
    assert "Create hello.txt saying hello." in fake.all_request_text()
