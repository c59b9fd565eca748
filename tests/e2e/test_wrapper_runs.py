"""The installed `itachi`, `itachic` and `itachig` commands run the engines (fake ones that print
each CLI's stream format): shortcuts, the subcommands left alone, credentials, auto-switch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.agent_harness import fake_engine_env, make_repo

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(os.name == "nt", reason="POSIX console scripts")]

BIN = Path(sys.executable).parent
SKIP = "--dangerously-skip-permissions"
BYPASS = "--dangerously-bypass-approvals-and-sandbox"
ECHOED = "ITACHI_CLIENT,CLAUDE_CODE_OAUTH_TOKEN,OPENAI_API_KEY,GEMINI_API_KEY,ITACHI_FALLBACK_ACTIVE"


class Machine:
    """A home directory, a git repository to work in, and the fake engines on call."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.home.mkdir()
        self.repo = make_repo(root / "repo")
        self.log = root / "engines.jsonl"
        self.env = {
            "PATH": os.environ["PATH"], "HOME": str(self.home), "ITACHI_HOME": str(root / "itachi"),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"), "ITACHI_ENGINE_PRIORITY": "claude,codex,gemini",
            "ITACHI_API_URL": "http://127.0.0.1:9", "ITACHI_FAKE_ENGINE_ECHO_ENV": ECHOED,
            **fake_engine_env(self.log),
        }

    def run(self, command: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / command), *args], cwd=self.repo, env={**self.env, **extra},
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)

    def starts(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        lines = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [line for line in lines if line["event"] == "start"]

    def keys_file(self, text: str, mode: int) -> Path:
        path = self.home / ".itachi-api-keys"
        path.write_text(text)
        path.chmod(mode)
        return path


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path)


def test_itachi_dp_runs_claude_in_print_mode_without_permission_prompts(machine: Machine) -> None:
    done = machine.run("itachi", "--dp", "hello")
    assert done.returncode == 0, done.stderr
    (start,) = machine.starts()
    assert start["engine"] == "claude"
    assert start["argv"] == ["-p", SKIP, "hello"]
    assert start["env"]["ITACHI_CLIENT"] == "claude"
    assert "Done by the fake claude." in done.stdout


def test_itachi_status_still_runs_the_status_subcommand(machine: Machine) -> None:
    done = machine.run("itachi", "status")
    assert machine.starts() == []
    assert done.stdout.splitlines()[0].split()[:2] == ["api", "down"]


def test_other_leading_flags_and_unknown_words_go_to_claude(machine: Machine) -> None:
    for args, expected in ((["--c"], ["--continue"]), (["--ds"], [SKIP]), (["--p", "hi"], ["-p", "hi"]),
                           (["explain this repository"], ["explain this repository"])):
        before = len(machine.starts())
        done = machine.run("itachi", *args)
        assert done.returncode == 0, done.stderr
        assert machine.starts()[before]["argv"] == expected
    # The runs above left transcripts: --cdp resumes the newest one of this directory.
    newest = max((machine.home / ".claude" / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
    assert machine.run("itachi", "--model", "opus", "--cdp", "go on").returncode == 0
    assert machine.starts()[-1]["argv"] == ["--model", "opus", "--resume", newest.stem, "-p", "go on"]
    assert "usage: itachi" in machine.run("itachi", "--help").stdout
    assert len(machine.starts()) == 5


def test_itachic_and_itachig_run_codex_and_gemini_with_their_own_flags(machine: Machine) -> None:
    assert machine.run("itachic", "--dp", "hi").returncode == 0
    assert machine.run("itachig", "--dp", "hi").returncode == 0
    codex, gemini = machine.starts()
    assert (codex["engine"], codex["argv"]) == ("codex", ["exec", BYPASS, "hi"])
    assert (gemini["engine"], gemini["argv"]) == ("gemini", ["--yolo", "-p", "hi"])
    assert [codex["env"]["ITACHI_CLIENT"], gemini["env"]["ITACHI_CLIENT"]] == ["codex", "gemini"]


def test_api_keys_load_from_a_private_keys_file_but_never_the_oauth_token(machine: Machine) -> None:
    machine.keys_file("# engines\nexport OPENAI_API_KEY='sk-from-file'\nGEMINI_API_KEY=g-1\n"
                      "CLAUDE_CODE_OAUTH_TOKEN=must-not-load\nnot a line\n", 0o600)
    assert machine.run("itachi", "--dp", "hi").returncode == 0
    assert machine.run("itachig", "--p", "hi", GEMINI_API_KEY="g-from-env").returncode == 0
    claude, gemini = machine.starts()
    assert claude["env"]["OPENAI_API_KEY"] == "sk-from-file"
    assert claude["env"]["CLAUDE_CODE_OAUTH_TOKEN"] is None
    assert gemini["env"]["GEMINI_API_KEY"] == "g-from-env"  # the environment wins


def test_a_keys_file_other_users_can_read_is_refused_with_the_fix(machine: Machine) -> None:
    path = machine.keys_file("OPENAI_API_KEY=sk-x\n", 0o644)
    done = machine.run("itachi", "--dp", "hi")
    assert done.returncode == 2
    assert f"chmod 600 {path}" in done.stderr and "sk-x" not in done.stderr
    assert machine.starts() == []


def test_over_ssh_claude_gets_its_token_from_the_auth_token_file_even_interactively(machine: Machine) -> None:
    token = machine.home / ".claude" / ".auth-token"
    token.parent.mkdir(parents=True)
    token.write_text("oauth-from-file\n")
    token.chmod(0o600)
    assert machine.run("itachi", "--ds", SSH_CONNECTION="10.0.0.2 50000 10.0.0.3 22").returncode == 0
    assert machine.run("itachi", "--ds").returncode == 0  # local: the subscription login
    over_ssh, local = machine.starts()
    assert over_ssh["env"]["CLAUDE_CODE_OAUTH_TOKEN"] == "oauth-from-file"
    assert local["env"]["CLAUDE_CODE_OAUTH_TOKEN"] is None
    token.chmod(0o640)
    refused = machine.run("itachi", "--dp", "hi", SSH_CLIENT="10.0.0.2 50000 22")
    assert refused.returncode == 2 and "chmod 600" in refused.stderr


def test_a_rate_limited_print_run_hands_over_to_the_next_engine(machine: Machine) -> None:
    done = machine.run("itachi", "--dp", "[fake:rate_limit=claude] [fake:write=notes.md] fix the bug",
                       "--output-format", "stream-json", "--verbose")
    assert done.returncode == 0, done.stderr
    claude, codex = machine.starts()
    assert claude["engine"] == "claude" and claude["env"]["ITACHI_FALLBACK_ACTIVE"] is None
    assert codex["engine"] == "codex" and codex["env"]["ITACHI_FALLBACK_ACTIVE"] == "1"
    assert codex["argv"][:3] == ["exec", "--json", BYPASS]
    handoff = codex["argv"][-1]
    assert handoff.startswith("[fake:rate_limit=claude] [fake:write=notes.md] fix the bug")
    assert "## Handoff from claude" in handoff and "Working on: [fake:rate_limit=claude]" in handoff
    assert "switching to codex (switch 1/2)" in done.stderr
    assert '"type": "turn.completed"' in done.stdout  # codex's own stream reaches the caller
    assert (machine.repo / "notes.md").read_text() == "written by the fake codex\n"


def test_the_loop_guard_stops_after_every_engine_was_tried_once(machine: Machine) -> None:
    done = machine.run("itachi", "--p", "[fake:rate_limit=claude,codex,gemini] fix the bug")
    assert done.returncode == 1
    assert [s["engine"] for s in machine.starts()] == ["claude", "codex", "gemini"]
    assert "no switch: switch limit reached (2/2)" in done.stderr
    assert machine.starts()[2]["argv"][:1] == ["-p"]  # gemini in print mode, like the first run


def test_a_run_started_as_a_fallback_never_switches_again(machine: Machine) -> None:
    done = machine.run("itachi", "--p", "[fake:rate_limit=claude] fix", ITACHI_FALLBACK_ACTIVE="1")
    assert done.returncode == 1
    assert [s["engine"] for s in machine.starts()] == ["claude"]


def test_the_machine_order_decides_the_next_engine(machine: Machine) -> None:
    done = machine.run("itachic", "--p", "[fake:rate_limit=codex] fix",
                       ITACHI_ENGINE_PRIORITY="gemini,claude")
    assert done.returncode == 0, done.stderr
    assert [s["engine"] for s in machine.starts()] == ["codex", "gemini"]


def test_an_interactive_claude_session_that_ends_on_a_rate_limit_continues_in_the_next_engine(
        machine: Machine) -> None:
    done = machine.run("itachi", "--ds", "[fake:rate_limit=claude] [fake:write=a.txt] refactor")
    assert done.returncode == 0, done.stderr
    claude, codex = machine.starts()
    assert claude["argv"] == [SKIP, "[fake:rate_limit=claude] [fake:write=a.txt] refactor"]
    assert codex["argv"][0] == BYPASS and "## Handoff from claude" in codex["argv"][1]
    assert "exec" not in codex["argv"]  # interactive again, not a print run
    assert "switching to codex" in done.stderr
