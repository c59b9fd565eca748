"""SSH run rules, remote command lines (POSIX and PowerShell), and the chat commands' parsing."""

from __future__ import annotations

import base64

import pytest

from agent.ssh.remote_shell import (
    PID_MARKER,
    adapt_for_powershell,
    kill_command,
    posix_command,
    ps_quote,
    quote_argv,
    windows_command,
)
from agent.ssh.targets import from_env
from chalicelib.kernel.errors import Conflict, InvalidInput
from chalicelib.ssh.domain import run_rules as rules
from chalicelib.ssh.domain.run_story import confirm_data, parse_confirm_data
from chalicelib.ssh.domain.ssh_model import SshTarget, check_target
from chalicelib.telegram.domain.bot_commands import parse_remote

FP = "SHA256:" + "a" * 43


@pytest.mark.parametrize("command,allowed", [
    ("git status", True), ("git status -s", True), ("uptime", True), ("git statusx", False),
    ("git push", False), ("uptime; rm -rf /", False), ("uptime && reboot", False), ("echo $HOME", False),
    ("uptime > /etc/motd", False), ("uptime `id`", False), ("df -h *", False), ("", False),
])
def test_only_plain_commands_starting_with_an_allowed_prefix_skip_the_confirmation(command: str,
                                                                                   allowed: bool) -> None:
    assert rules.on_allow_list(command, ["git status", "uptime", "df -h"]) is allowed


def test_run_states_refuse_stale_moves() -> None:
    rules.check_move(rules.AWAITING, rules.QUEUED)
    rules.check_move(rules.RUNNING, rules.TIMED_OUT)
    for current, new in [(rules.SUCCEEDED, rules.RUNNING), (rules.CANCELLED, rules.QUEUED),
                         (rules.AWAITING, rules.RUNNING)]:
        with pytest.raises(Conflict):
            rules.check_move(current, new)


def test_confirmation_buttons_fit_telegram_and_round_trip() -> None:
    run_id = "0f8e2c4a-1b2c-4d5e-8f90-123456789abc"
    for yes in (True, False):
        data = confirm_data(run_id, yes)
        assert len(data.encode()) <= 64 and parse_confirm_data(data) == (run_id, yes)
    assert parse_confirm_data("sp:x:itachi:ds") is None


@pytest.mark.parametrize("bad", [
    {"name": "has space"}, {"port": 0}, {"fingerprint": "MD5:aa"}, {"platform": "vms"}, {"user": "a b"},
    {"allowed_commands": ("",)},
])
def test_malformed_targets_are_refused_naming_the_field(bad: dict[str, object]) -> None:
    base = {"name": "box", "machine_id": "laptop", "host": "10.0.0.5", "user": "me", "fingerprint": FP}
    with pytest.raises(InvalidInput) as refused:
        check_target(SshTarget(**{**base, **bad}))  # type: ignore[arg-type]
    assert refused.value.field == next(iter(bad))


def test_a_posix_command_reports_its_pid_and_runs_quoted_under_sh() -> None:
    line = posix_command("echo 'a b' && ls", env={"TASK": "x y"}, cwd="/srv/my repo")
    assert line.startswith(f"echo {PID_MARKER}$$; exec env TASK='x y' /bin/sh -c ")
    assert "cd '/srv/my repo' && echo" in line.replace("'\"'\"'", "'")
    assert kill_command(42, "posix").startswith("kill -TERM -- -42")


def test_powershell_has_no_double_ampersand_so_it_is_rewritten() -> None:
    assert adapt_for_powershell("git pull && npm test && echo ok") == \
        "git pull; if ($?) { npm test; if ($?) { echo ok } }"
    assert adapt_for_powershell('echo "a && b"') == 'echo "a && b"'
    assert ps_quote("it's $env:TEMP") == "'it''s $env:TEMP'"


def test_a_windows_command_is_an_encoded_powershell_script() -> None:
    line = windows_command("Write-Output $env:TEMP && dir", env={"ITACHI_TASK_ID": "t1"}, cwd="C:\\src\\app")
    program, encoded = line.rsplit(" ", 1)
    assert program == "powershell -NoProfile -NonInteractive -EncodedCommand"
    script = base64.b64decode(encoded).decode("utf-16-le")
    assert script.splitlines()[:3] == [f'Write-Output "{PID_MARKER}$PID"', "$env:ITACHI_TASK_ID = 't1'",
                                       "Set-Location -LiteralPath 'C:\\src\\app'"]
    assert "Write-Output $env:TEMP; if ($?) { dir }" in script
    assert kill_command(7, "windows") == "taskkill /T /F /PID 7"
    assert quote_argv(["claude", "-p", "it's"], "windows") == "& 'claude' '-p' 'it''s'"


def test_targets_come_from_the_environment_as_in_the_seed() -> None:
    env = {"ITACHI_SSH_WINDOWS_PC_HOST": "100.105.111.11", "ITACHI_SSH_WINDOWS_PC_USER": "newma",
           "ITACHI_SSH_WINDOWS_PC_KEY": "~/.ssh/id_windows", "ITACHI_SSH_WINDOWS_PC_PLATFORM": "windows",
           "ITACHI_SSH_MAC_HOST": "mac.local", "ITACHI_SSH_MAC_PORT": "2222", "OTHER": "x"}
    targets = from_env(env)
    assert sorted(targets) == ["mac", "windows-pc"]
    pc = targets["windows-pc"]
    assert (pc.host, pc.user, pc.key_path, pc.platform, pc.fingerprint) == (
        "100.105.111.11", "newma", "~/.ssh/id_windows", "windows", None)
    assert targets["mac"].port == 2222


@pytest.mark.parametrize("text,verb,where,command,timeout", [
    ("/ssh box uname -a", "ssh", "box", "uname -a", None),
    ('/ssh box echo "a  b"', "ssh", "box", 'echo "a  b"', None),
    ("/exec @laptop --timeout 5 sleep 10", "exec", "laptop", "sleep 10", 5),
    ("/exec@itachi_bot @laptop ls\n-la", "exec", "laptop", "ls\n-la", None),
])
def test_remote_commands_keep_the_command_verbatim(text: str, verb: str, where: str, command: str,
                                                   timeout: int | None) -> None:
    parsed = parse_remote(text, verb)
    assert (parsed.where, parsed.command, parsed.timeout_s) == (where, command, timeout)


@pytest.mark.parametrize("text,verb", [("/ssh", "ssh"), ("/ssh box", "ssh"), ("/exec laptop ls", "exec")])
def test_incomplete_remote_commands_answer_their_usage(text: str, verb: str) -> None:
    with pytest.raises(InvalidInput):
        parse_remote(text, verb)
