"""``itachi claude|codex|gemini ...``, ``itachic`` and ``itachig``: run an engine with memory.

The wrappers expand Itachi's flag shortcuts, tell the hooks which client is running
(``ITACHI_CLIENT``) and hand every other argument to the engine unchanged.

=========  ====================================  =====================  ==================
shortcut   claude                                codex                  gemini
=========  ====================================  =====================  ==================
--ds       --dangerously-skip-permissions        --dangerously-bypass-  --yolo
                                                 approvals-and-sandbox
--c/--cds  --resume <newest session of this      resume --last          --resume latest
           directory> (else --continue)
--p        -p                                    exec                   -p
--dp       -p --dangerously-skip-permissions     exec + --ds            --yolo -p
--cdp      resume + -p                           exec resume --last     --resume latest -p
=========  ====================================  =====================  ==================
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hooks.memory_md import claude_config_dir, encode_cwd

CLIENTS = ("claude", "codex", "gemini")
_SHORTCUTS = frozenset({"--ds", "--c", "--cds", "--p", "--dp", "--cdp"})
_SKIP = {"claude": ["--dangerously-skip-permissions"], "gemini": ["--yolo"],
         "codex": ["--dangerously-bypass-approvals-and-sandbox"]}
_PRINT = {"claude": ["-p"], "gemini": ["-p"], "codex": []}  # codex prints via `exec`
_RESUME = {"gemini": ["--resume", "latest"], "codex": []}  # codex resumes via `resume --last`


def latest_session_id(cwd: Path, config_dir: Path) -> str | None:
    """The id of the newest Claude Code transcript recorded for cwd, if any."""
    folder = config_dir / "projects" / encode_cwd(str(cwd))
    try:
        newest = max(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, default=None)
    except OSError:
        return None
    return newest.stem if newest is not None else None


def expand_args(client: str, argv: list[str], cwd: Path, config_dir: Path) -> list[str]:
    """Return the engine command line for argv: [engine, *arguments] with shortcuts expanded."""
    if client not in CLIENTS:
        raise ValueError(f"unknown client {client!r}")
    args: list[str] = []
    wants_exec = wants_resume = False
    for index, arg in enumerate(argv):
        if arg == "--":  # everything after belongs to the engine, untouched
            args.extend(argv[index:])
            break
        if arg not in _SHORTCUTS:
            args.append(arg)
            continue
        resuming, printing = arg in ("--c", "--cds", "--cdp"), arg in ("--p", "--dp", "--cdp")
        wants_resume, wants_exec = wants_resume or resuming, wants_exec or printing
        resume = _resume_args(client, cwd, config_dir) if resuming else []
        skip = _SKIP[client] if arg in ("--ds", "--dp") else []
        prints = _PRINT[client] if printing else []
        # Gemini's -p takes the next argument as the prompt, so it must come last there.
        args.extend(resume + prints + skip if client == "claude" else resume + skip + prints)
    if client == "codex":  # codex takes these as subcommands, ahead of everything else
        sub = (["exec"] if wants_exec else []) + (["resume", "--last"] if wants_resume else [])
        args = sub + args
    return [client, *args]


def _resume_args(client: str, cwd: Path, config_dir: Path) -> list[str]:
    if client != "claude":
        return list(_RESUME[client])
    session = latest_session_id(cwd, config_dir)
    return ["--resume", session] if session else ["--continue"]


def engine_env(client: str, args: list[str], base: Mapping[str, str]) -> dict[str, str]:
    """The engine's environment: ITACHI_CLIENT and ITACHI_ENABLED set; for interactive Claude
    runs CLAUDE_CODE_OAUTH_TOKEN is dropped so the subscription login is used."""
    env = dict(base)
    env["ITACHI_CLIENT"] = client
    env["ITACHI_ENABLED"] = "1"
    head = args[: args.index("--")] if "--" in args else args
    if client == "claude" and not {"-p", "--print"} & set(head):
        env.pop("CLAUDE_CODE_OAUTH_TOKEN", None)
    return env


def run(client: str, argv: list[str]) -> int:
    """Exec the engine (POSIX) or run it and return its exit code (Windows)."""
    command = expand_args(client, argv, Path.cwd(), claude_config_dir())
    env = engine_env(client, command[1:], os.environ)
    engine = env.get(f"ITACHI_{client.upper()}_BIN") or client
    executable = shutil.which(engine)
    if executable is None:
        print(f"itachi: {engine} not found on PATH", file=sys.stderr)
        return 127
    sys.stdout.flush()
    if os.name != "nt":
        os.execvpe(executable, [engine, *command[1:]], env)  # noqa: S606  # argv, no shell
    return subprocess.call([executable, *command[1:]], env=env)


def claude_main() -> int:
    return run("claude", sys.argv[1:])


def codex_main() -> int:
    return run("codex", sys.argv[1:])


def gemini_main() -> int:
    return run("gemini", sys.argv[1:])


def add_parser(subparsers: Any) -> None:
    """Register ``itachi claude|codex|gemini ...`` (every argument passes through)."""
    for client in CLIENTS:
        # No prefix chars and no -h: argparse must not claim any of the engine's options.
        parser = subparsers.add_parser(
            client, add_help=False, prefix_chars="\x00",
            help=f"run {client} with Itachi memory (--ds, --c/--cds, --p, --dp, --cdp)",
        )
        parser.add_argument("engine_args", nargs=argparse.REMAINDER)
        parser.set_defaults(func=lambda ns, c=client: run(c, list(ns.engine_args)))
