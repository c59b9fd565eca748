"""The hook installer merges into settings files and removes exactly what it added."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent.installers.install_hooks import (
    CLIENT_HOOKS,
    InstallError,
    add_parser,
    hook_command,
    install_hooks,
    is_itachi_hook,
    launcher_for,
    own_launcher,
    settings_path,
    uninstall_hooks,
)

pytestmark = pytest.mark.unit

PYTHON = "/opt/itachi venv/bin/python"
LAUNCHER = str(Path(__file__).resolve().parents[2] / "hooks" / "launch.py")
EXISTING: dict[str, Any] = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "fmt.sh"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


@pytest.fixture
def claude_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    return config


def ours(settings: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [h for g in settings["hooks"][event] for h in g["hooks"] if is_itachi_hook(h)]


def test_user_scope_writes_every_claude_hook_with_its_timeout(claude_dir: Path, tmp_path: Path) -> None:
    path = install_hooks("user", "claude", tmp_path, PYTHON)
    assert path == claude_dir / "settings.json"
    settings = json.loads(path.read_text())
    timeouts = {event: ours(settings, event)[0]["timeout"] for event in settings["hooks"]}
    assert timeouts == {"SessionStart": 15, "UserPromptSubmit": 8, "PostToolUse": 10, "PreToolUse": 610,
                        "PostToolUseFailure": 10, "PreCompact": 10, "Stop": 10, "SessionEnd": 5,
                        "SubagentStart": 8}
    group = settings["hooks"]["PostToolUse"][0]
    assert group["matcher"] == "Write|Edit|MultiEdit|Read|Bash"
    command = f"'{PYTHON}' -I -S {LAUNCHER} post_tool_use --itachi-client claude"
    assert group["hooks"][0] == {"type": "command", "timeout": 10, "command": command}


def test_existing_settings_and_hooks_are_kept(claude_dir: Path, tmp_path: Path) -> None:
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text(json.dumps(EXISTING, indent=4))
    settings = json.loads(install_hooks("user", "claude", tmp_path, PYTHON).read_text())
    assert settings["model"] == "opus" and settings["permissions"] == EXISTING["permissions"]
    assert settings["hooks"]["PostToolUse"][0] == EXISTING["hooks"]["PostToolUse"][0]
    assert settings["hooks"]["Notification"] == EXISTING["hooks"]["Notification"]
    assert len(ours(settings, "PostToolUse")) == 1


def test_installing_twice_changes_nothing(claude_dir: Path, tmp_path: Path) -> None:
    path = install_hooks("user", "claude", tmp_path, PYTHON)
    first = path.read_bytes()
    install_hooks("user", "claude", tmp_path, PYTHON)
    assert path.read_bytes() == first


def test_reinstalling_with_another_python_replaces_the_old_entries(claude_dir: Path, tmp_path: Path) -> None:
    install_hooks("user", "claude", tmp_path, PYTHON)
    settings = json.loads(install_hooks("user", "claude", tmp_path, "/usr/bin/python3").read_text())
    commands = [h["command"] for h in ours(settings, "Stop")]
    assert commands == [f"/usr/bin/python3 -I -S {LAUNCHER} stop --itachi-client claude"]


def test_hooks_installed_with_the_module_form_are_upgraded_in_place(claude_dir: Path, tmp_path: Path) -> None:
    """Entries written as `python -I -m hooks.<name>` before the launcher are replaced, not doubled."""
    claude_dir.mkdir()
    def module_form(name: str) -> dict[str, Any]:
        return {"type": "command", "command": f"'{PYTHON}' -I -m hooks.{name} --itachi-client claude"}

    old = {"hooks": {**EXISTING["hooks"],
                     "UserPromptSubmit": [{"hooks": [module_form("user_prompt_submit")]}],
                     "Stop": [{"hooks": [{"type": "command", "command": "echo mine"}, module_form("stop")]}]}}
    (claude_dir / "settings.json").write_text(json.dumps(old))
    settings = json.loads(install_hooks("user", "claude", tmp_path, PYTHON).read_text())
    prompt_hooks = [h["command"] for g in settings["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert prompt_hooks == [f"'{PYTHON}' -I -S {LAUNCHER} user_prompt_submit --itachi-client claude"]
    assert settings["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "echo mine"}]}
    assert [h["command"] for h in ours(settings, "Stop")] == [
        f"'{PYTHON}' -I -S {LAUNCHER} stop --itachi-client claude"]
    assert settings["hooks"]["PostToolUse"][0] == EXISTING["hooks"]["PostToolUse"][0]
    assert "-m hooks." not in json.dumps(settings)


def test_an_interpreter_without_itachi_gets_this_installs_launcher(tmp_path: Path) -> None:
    assert launcher_for(str(tmp_path / "no-such-python")) == own_launcher() == LAUNCHER


def test_uninstall_restores_the_original_settings(claude_dir: Path, tmp_path: Path) -> None:
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text(json.dumps(EXISTING))
    install_hooks("user", "claude", tmp_path, PYTHON)
    path = uninstall_hooks("user", "claude", tmp_path)
    assert json.loads(path.read_text()) == EXISTING


def test_uninstall_keeps_a_hook_the_user_added_to_our_group(claude_dir: Path, tmp_path: Path) -> None:
    path = install_hooks("user", "claude", tmp_path, PYTHON)
    settings = json.loads(path.read_text())
    mine = {"type": "command", "command": "echo mine"}
    settings["hooks"]["Stop"][0]["hooks"].append(mine)
    path.write_text(json.dumps(settings))
    after = json.loads(uninstall_hooks("user", "claude", tmp_path).read_text())
    assert after == {"hooks": {"Stop": [{"hooks": [mine]}]}}


def test_project_scope_writes_into_the_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "pkg").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    path = install_hooks("project", "claude", repo / "src" / "pkg", PYTHON)
    assert path == repo / ".claude" / "settings.json"


def test_codex_hooks_go_to_codex_home_with_the_apply_patch_matcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    path = install_hooks("user", "codex", tmp_path, PYTHON)
    assert path == tmp_path / "codex" / "hooks.json"
    settings = json.loads(path.read_text())
    assert set(settings["hooks"]) == {spec.event for spec in CLIENT_HOOKS["codex"]}
    assert settings["hooks"]["PostToolUse"][0]["matcher"] == "apply_patch|Edit|Write"
    assert ours(settings, "Stop")[0]["command"].endswith("--itachi-client codex")


def test_gemini_hooks_use_gemini_event_names_and_milliseconds(tmp_path: Path) -> None:
    path = install_hooks("project", "gemini", tmp_path, PYTHON)
    assert path == tmp_path / ".gemini" / "settings.json"
    hooks = json.loads(path.read_text())["hooks"]
    assert hooks["BeforeAgent"][0]["hooks"][0]["timeout"] == 8000
    assert hooks["AfterTool"][0]["matcher"] == "write_file|replace"
    assert hooks["AfterAgent"][0]["hooks"][0]["name"] == "itachi-stop"


def test_a_settings_file_that_is_not_json_is_left_alone(claude_dir: Path, tmp_path: Path) -> None:
    claude_dir.mkdir()
    (claude_dir / "settings.json").write_text("{ // a comment\n}")
    with pytest.raises(InstallError):
        install_hooks("user", "claude", tmp_path, PYTHON)
    assert (claude_dir / "settings.json").read_text() == "{ // a comment\n}"


def test_windows_commands_are_quoted_for_cmd_and_still_recognised() -> None:
    launcher = r"C:\Program Files\Itachi\Lib\site-packages\hooks\launch.py"
    command = hook_command("stop", "claude", r"C:\Program Files\Python311\python.exe", windows=True,
                           launcher=launcher)
    assert command == (r'"C:\Program Files\Python311\python.exe" -I -S '
                       rf'"{launcher}" stop --itachi-client claude')
    assert is_itachi_hook({"command": command})
    assert is_itachi_hook({"command": r"C:\py\python.exe -I -m hooks.stop --itachi-client claude"})
    assert not is_itachi_hook({"command": "python -m hooks.stop"})
    assert not is_itachi_hook({"command": f"python -I -S {LAUNCHER} stop"})


def test_settings_paths_cover_every_client_and_scope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    assert settings_path("user", "claude", tmp_path) == tmp_path / ".claude" / "settings.json"
    assert settings_path("user", "gemini", tmp_path) == tmp_path / ".gemini" / "settings.json"
    with pytest.raises(InstallError):
        settings_path("system", "claude", tmp_path)


def test_the_cli_commands_install_and_uninstall(
    claude_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser(prog="itachi")
    add_parser(parser.add_subparsers(dest="command"))
    monkeypatch.chdir(tmp_path)
    args = parser.parse_args(["install-hooks", "--python", PYTHON])
    assert args.func(args) == 0
    assert "UserPromptSubmit" in json.loads((claude_dir / "settings.json").read_text())["hooks"]
    args = parser.parse_args(["uninstall-hooks", "--scope", "user", "--client", "claude"])
    assert args.func(args) == 0
    assert json.loads((claude_dir / "settings.json").read_text()) == {}
    assert "Removed Itachi hooks" in capsys.readouterr().out
