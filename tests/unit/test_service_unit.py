"""The agent's service definitions as `itachi service install --print` renders them: a systemd user
unit systemd accepts and a launchd plist, both running `itachi agent` for the state directory with
this interpreter, restarted always, and never holding a secret."""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main
from agent.installers.service_unit import service_environment
from tests.support.unit_supervisor import environment, exec_words, parse_unit

MACHINE_KEY = "itk_" + "k" * 40


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A joined machine's state directory, at a path systemd must quote and escape."""
    home = tmp_path / 'state dir $HOME %h "q"'
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"api_url": "http://127.0.0.1:9", "api_key": MACHINE_KEY,
                                                  "machine_id": "box-1"}))
    return home


def _print(home: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    assert main(["service", "install", "--print", "--home", str(home), *extra]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_the_printed_unit_always_restarts_itachi_agent_for_the_home_with_this_interpreter(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ITACHI_API_KEY", "itk_" + "e" * 40)
    monkeypatch.setenv("ITACHI_AGENT_ROOTS", "/srv/code,/home/me/work")

    text, err = _print(home, capsys, "--manager", "systemd")

    unit = parse_unit(text)
    service = unit["Service"]
    assert exec_words(service["ExecStart"][0]) == [sys.executable, "-m", "agent.cli", "agent",
                                                   "--home", str(home), "--machine-id", "box-1"]
    assert (service["Restart"], service["RestartSec"]) == (["always"], ["5"])
    assert unit["Install"]["WantedBy"] == ["default.target"]
    assert unit["Unit"]["StartLimitIntervalSec"] == ["0"]
    env = environment(service["Environment"])
    assert env["ITACHI_HOME"] == str(home)
    assert env["ITACHI_AGENT_ROOTS"] == "/srv/code,/home/me/work"
    assert env["PATH"] == os.environ["PATH"]
    assert "ITACHI_API_KEY" not in env
    assert MACHINE_KEY not in text and "e" * 40 not in text
    assert "Left out of the service" in err and "ITACHI_API_KEY" in err


def test_systemd_analyze_verify_accepts_the_printed_unit(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ITACHI_ODD_VALUE", 'a "quoted" \\back $dollar %percent')
    text, _ = _print(home, capsys, "--manager", "systemd")
    unit_dir = tmp_path / "units"
    unit_dir.mkdir()
    (unit_dir / "itachi-agent.service").write_text(text)
    assert environment(parse_unit(text)["Service"]["Environment"])["ITACHI_ODD_VALUE"] == \
        'a "quoted" \\back $dollar %percent'
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)

    verified = subprocess.run([analyze, "verify", "--user", str(unit_dir / "itachi-agent.service")],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})

    assert (verified.returncode, verified.stdout + verified.stderr) == (0, "")


def test_the_printed_launchd_plist_keeps_the_agent_alive_from_load(
        home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ITACHI_API_KEY", "itk_" + "e" * 40)

    text, _ = _print(home, capsys, "--manager", "launchd")

    plist = plistlib.loads(text.encode())
    assert (plist["KeepAlive"], plist["RunAtLoad"], plist["ThrottleInterval"]) == (True, True, 5)
    assert plist["Label"] == "com.itachi.agent"
    assert plist["ProgramArguments"] == [sys.executable, "-m", "agent.cli", "agent", "--home", str(home),
                                         "--machine-id", "box-1"]
    assert plist["EnvironmentVariables"]["ITACHI_HOME"] == str(home)
    assert plist["StandardOutPath"] == str(home / "logs" / "agent.log")
    assert "ITACHI_API_KEY" not in plist["EnvironmentVariables"]
    assert MACHINE_KEY not in text and "e" * 40 not in text


def test_the_service_environment_keeps_the_agents_settings_and_leaves_out_every_secret(
        tmp_path: Path) -> None:
    env = {"ITACHI_AGENT_ROOTS": "/srv", "ITACHI_ENGINE_PRIORITY": "codex,claude", "PATH": "/usr/bin",
           "ITACHI_API_KEY": "itk_" + "a" * 30, "ITACHI_DB_PASSWORD": "hunter22",
           "HTTPS_PROXY": "http://me:s3cretpass@proxy:3128", "ITACHI_NOTE": "sk-" + "b" * 30,
           "AWS_SECRET_ACCESS_KEY": "x" * 40, "OPENAI_API_KEY": "sk-" + "c" * 30, "EDITOR": "vim",
           "ITACHI_HOME": "/elsewhere", "ITACHI_MULTILINE": "a\nb"}

    kept, secret = service_environment(env, tmp_path)

    assert kept == {"ITACHI_HOME": str(tmp_path), "ITACHI_AGENT_ROOTS": "/srv",
                    "ITACHI_ENGINE_PRIORITY": "codex,claude", "PATH": "/usr/bin"}
    assert secret == ["HTTPS_PROXY", "ITACHI_API_KEY", "ITACHI_DB_PASSWORD", "ITACHI_NOTE"]


def test_the_unit_names_the_machine_given_over_the_one_in_config(
        home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, _ = _print(home, capsys, "--manager", "systemd", "--machine-id", "other-box")

    argv = exec_words(parse_unit(text)["Service"]["ExecStart"][0])
    assert argv[-2:] == ["--machine-id", "other-box"]
