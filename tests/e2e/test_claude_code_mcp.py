"""The real Claude Code CLI using Itachi's MCP tools, registered by the real `itachi install-hooks`.

A scripted model (FakeAnthropic) calls `mcp__itachi__memory_search` in one turn and
`mcp__itachi__memory_store` in the next; Claude Code starts `itachi mcp` from the project's
`.mcp.json`, which talks to the `api` fixture. What the tool returned is read back from what
Claude Code sent the model; what it stored, from the API.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import RunningApi
from tests.e2e.test_claude_code_memory import PROJECT, REMOTE, claude, get, hook_env, itachi_home, warm_api
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.integration.memory.conftest import call
from tests.support.claude_cli import StreamJsonSession

pytestmark = pytest.mark.e2e
__all__ = ["claude", "itachi_home", "warm_api"]  # fixtures shared with the hooks' e2e test

FREEZE = "Deploys are frozen from Friday 15:00 UTC until Monday 09:00 UTC."
LESSON = "The staging database is reset every night at 02:00 UTC; never keep test data there."
ALLOW = ("--allowedTools", "mcp__itachi__memory_search,mcp__itachi__memory_store")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with an origin remote, hooks and the MCP server installed at project scope."""
    path = tmp_path / "notes-service"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", REMOTE], check=True, timeout=30)
    itachi = Path(sys.executable).parent / "itachi"
    installed = subprocess.run([str(itachi), "install-hooks", "--scope", "project"], cwd=path,
                               capture_output=True, text=True, timeout=60)
    assert installed.returncode == 0, installed.stderr
    assert "Registered the Itachi MCP server" in installed.stdout
    return path


def tool_results(fake: FakeAnthropic) -> list[str]:
    """The text of every tool_result block Claude Code sent the model."""
    found = []
    for request in fake.conversation_requests():
        for message in request.body.get("messages", []):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    found.append(inner if isinstance(inner, str) else json.dumps(inner))
    return found


def test_claude_code_searches_and_stores_memory_through_the_mcp_server(
        claude: Path, repo: Path, warm_api: RunningApi, itachi_home: Path, tmp_path: Path) -> None:
    mcp_json = json.loads((repo / ".mcp.json").read_text())
    assert mcp_json["mcpServers"]["itachi"]["args"][-3:] == ["mcp", "--itachi-client", "claude"]
    status, stored = call(warm_api, "POST", "/api/memory", {"project": PROJECT, "content": FREEZE,
                                                            "category": "decision"})
    assert status == 201
    script = [
        Reply.tool_use("mcp__itachi__memory_search", {"query": "when are deploys frozen", "limit": 3}),
        Reply.text("Deploys are frozen on Friday afternoons."),
        # The user asked to remember it: their words, so the call says so (an agent's own finding
        # would be stored untrusted, kept out of the hooks' reads until a person promotes it).
        Reply.tool_use("mcp__itachi__memory_store", {"content": LESSON, "category": "fact",
                                                     "tags": ["staging"], "origin": "user"}),
        Reply.text("Noted."),
    ]
    with FakeAnthropic(script) as fake:
        env = hook_env(fake, tmp_path / "claude-config", itachi_home, warm_api.url, warm_api.key)
        with StreamJsonSession(claude, cwd=repo, env=env, args=ALLOW, timeout=180) as session:
            first = session.send("Can I deploy on Friday evening?")
            assert first[-1]["result"] == "Deploys are frozen on Friday afternoons.", first[-1]
            searched = next(r for r in tool_results(fake) if "frozen" in r)
            assert FREEZE in searched and stored["id"] in searched
            second = session.send("Remember that staging is reset nightly.")
            assert second[-1]["result"] == "Noted.", second[-1]
            assert session.close() == 0
    assert any("Stored memory" in r for r in tool_results(fake)), tool_results(fake)
    recent = get(warm_api, "/api/memory/recent", project=PROJECT, tag="staging")["results"]
    assert [m["content"] for m in recent] == [LESSON]
    assert recent[0]["metadata"] == {"source": "mcp", "tags": ["staging"]}
    assert (recent[0]["source"], recent[0]["trusted"]) == ("user", True)
