"""Engine wrappers: flag shortcuts, session resume, environment, CLI registration."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent.wrappers.engine_command import engine_env, expand_args, latest_session_id
from agent.wrappers.wrapper_cli import add_parser
from hooks.memory_md import encode_cwd

pytestmark = pytest.mark.unit

REPO_ROOT = Path(__file__).resolve().parents[2]
CWD = Path("/work/project")
SKIP = "--dangerously-skip-permissions"
BYPASS = "--dangerously-bypass-approvals-and-sandbox"


@pytest.mark.parametrize(
    ("client", "argv", "expected"),
    [
        ("claude", ["--ds"], ["claude", SKIP]),
        ("claude", ["--p", "hi"], ["claude", "-p", "hi"]),
        ("claude", ["--dp", "hi"], ["claude", "-p", SKIP, "hi"]),
        ("claude", ["--c"], ["claude", "--continue"]),
        ("claude", ["--cds"], ["claude", "--continue"]),
        ("claude", ["--cdp", "go on"], ["claude", "--continue", "-p", "go on"]),
        ("codex", ["--ds"], ["codex", BYPASS]),
        ("codex", ["--p", "hi"], ["codex", "exec", "hi"]),
        ("codex", ["--dp", "hi"], ["codex", "exec", BYPASS, "hi"]),
        ("codex", ["--c"], ["codex", "resume", "--last"]),
        ("codex", ["--cdp", "hi"], ["codex", "exec", "resume", "--last", "hi"]),
        ("gemini", ["--ds"], ["gemini", "--yolo"]),
        ("gemini", ["--dp", "hi"], ["gemini", "--yolo", "-p", "hi"]),
        ("gemini", ["--cds"], ["gemini", "--resume", "latest"]),
        ("gemini", ["--cdp", "hi"], ["gemini", "--resume", "latest", "-p", "hi"]),
    ],
)
def test_shortcuts_expand_to_each_engines_flags(
    client: str, argv: list[str], expected: list[str], tmp_path: Path
) -> None:
    assert expand_args(client, argv, CWD, tmp_path) == expected


def test_every_other_argument_passes_through_unchanged(tmp_path: Path) -> None:
    argv = ["--model", "opus", "-p", "explain --ds please", "--", "--ds", "--c"]
    assert expand_args("claude", argv, CWD, tmp_path) == ["claude", *argv]


def test_resume_picks_the_newest_transcript_of_this_directory(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / encode_cwd(str(CWD))
    folder.mkdir(parents=True)
    for name, mtime in (("old-session", 1000), ("new-session", 3000), ("mid-session", 2000)):
        (folder / f"{name}.jsonl").write_text("{}\n")
        os.utime(folder / f"{name}.jsonl", (mtime, mtime))
    (tmp_path / "projects" / "-other").mkdir()
    (tmp_path / "projects" / "-other" / "newest-elsewhere.jsonl").write_text("{}\n")
    assert latest_session_id(CWD, tmp_path) == "new-session"
    assert expand_args("claude", ["--c", "--ds"], CWD, tmp_path) == [
        "claude", "--resume", "new-session", SKIP,
    ]


def test_interactive_claude_drops_the_oauth_token_but_print_mode_keeps_it() -> None:
    base = {"CLAUDE_CODE_OAUTH_TOKEN": "tok", "PATH": "/bin"}
    interactive = engine_env("claude", [SKIP], base)
    assert "CLAUDE_CODE_OAUTH_TOKEN" not in interactive
    assert interactive["ITACHI_CLIENT"] == "claude" and interactive["ITACHI_ENABLED"] == "1"
    assert engine_env("claude", ["-p", "hi"], base)["CLAUDE_CODE_OAUTH_TOKEN"] == "tok"
    assert engine_env("codex", [], base)["ITACHI_CLIENT"] == "codex"
    assert base == {"CLAUDE_CODE_OAUTH_TOKEN": "tok", "PATH": "/bin"}


def test_unknown_clients_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown client"):
        expand_args("cursor", [], CWD, tmp_path)


def test_the_cli_hands_every_argument_to_the_engine_parser() -> None:
    parser = argparse.ArgumentParser(prog="itachi")
    add_parser(parser.add_subparsers(dest="command"))
    for argv in (["--ds", "-p", "x"], ["--help"], ["-h", "--", "--c"], []):
        args = parser.parse_args(["gemini", *argv])
        assert args.engine_args == argv
        assert callable(args.func)


@pytest.mark.skipif(os.name == "nt", reason="exec replaces the process on POSIX only")
def test_the_wrapper_execs_the_engine_with_expanded_args_and_env(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    engine = tmp_path / "fake-claude"
    engine.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import json, os, sys
        keep = ("ITACHI_CLIENT", "ITACHI_ENABLED", "CLAUDE_CODE_OAUTH_TOKEN")
        env = {{k: os.environ.get(k) for k in keep}}
        json.dump({{"argv": sys.argv[1:], "env": env}}, open({str(record)!r}, "w"))
    """))
    engine.chmod(0o755)
    env = {**os.environ, "ITACHI_CLAUDE_BIN": str(engine), "CLAUDE_CODE_OAUTH_TOKEN": "tok",
           "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    script = "import sys; from agent.wrappers.wrapper_cli import claude_main; sys.exit(claude_main())"
    done = subprocess.run([sys.executable, "-c", script, "--ds", "--model", "x"],
                          cwd=REPO_ROOT, env=env, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    seen = json.loads(record.read_text())
    assert seen["argv"] == [SKIP, "--model", "x"]
    assert seen["env"] == {"ITACHI_CLIENT": "claude", "ITACHI_ENABLED": "1",
                           "CLAUDE_CODE_OAUTH_TOKEN": None}


def test_a_missing_engine_is_reported_with_exit_code_127(tmp_path: Path) -> None:
    env = {**os.environ, "ITACHI_GEMINI_BIN": str(tmp_path / "no-such-gemini")}
    script = "import sys; from agent.wrappers.wrapper_cli import gemini_main; sys.exit(gemini_main())"
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 127
    assert "not found" in done.stderr


def _fake_engine(tmp_path: Path) -> Path:
    engine = tmp_path / "fake-engine"
    engine.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    engine.chmod(0o755)
    return engine


def test_continuing_claude_shows_the_session_id_it_resumes(tmp_path: Path) -> None:
    folder = tmp_path / "cfg" / "projects" / encode_cwd(str(REPO_ROOT))
    folder.mkdir(parents=True)
    (folder / "3f2a9c1e-0000-4000-8000-000000000001.jsonl").write_text("{}\n")
    env = {**os.environ, "ITACHI_CLAUDE_BIN": str(_fake_engine(tmp_path)),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "cfg"), "ITACHI_AUTO_SWITCH": "0"}
    script = "import sys; from agent.wrappers.wrapper_cli import claude_main; sys.exit(claude_main())"
    done = subprocess.run([sys.executable, "-c", script, "--c"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "itachi: continuing claude session 3f2a9c1e-0000-4000-8000-000000000001" in done.stderr


def test_continuing_codex_shows_the_newest_session_id_of_this_directory(tmp_path: Path) -> None:
    from tests.support.session_stores import codex_session

    home = tmp_path / "home"
    codex_session(home, REPO_ROOT, "0199a1b2-0000-7000-8000-000000000042", ["fix it"])
    env = {**os.environ, "ITACHI_CODEX_BIN": str(_fake_engine(tmp_path)), "HOME": str(home),
           "CODEX_HOME": str(home / ".codex"), "ITACHI_AUTO_SWITCH": "0"}
    script = "import sys; from agent.wrappers.wrapper_cli import codex_main; sys.exit(codex_main())"
    done = subprocess.run([sys.executable, "-c", script, "--c"], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "itachi: continuing codex session 0199a1b2-0000-7000-8000-000000000042" in done.stderr
