"""A wrapper run's engine command line and environment: Itachi's flag shortcuts expanded.

The wrappers expand Itachi's flag shortcuts, tell the hooks which client is running
(``ITACHI_CLIENT``), add the engine's credentials (``engine_keys``) and hand every other
argument to the engine unchanged.

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

A resume shortcut prints the id of the engine session it continues (``itachi: continuing claude
session <id>``), the ones continued from Telegram's /continue included.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from agent.wrappers.engine_keys import engine_credentials, over_ssh
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


def resumed_session(client: str, args: list[str], cwd: Path) -> str | None:
    """The engine session a resume shortcut continues, so the terminal shows its id: Claude's is
    on its command line; Codex's and Gemini's is the newest of this directory in their store."""
    if client == "claude":
        return args[args.index("--resume") + 1] if "--resume" in args[:-1] else None
    from agent.transcripts.resumable import recent_sessions

    here = cwd.resolve()
    return next((s.session_id for s in recent_sessions([here], limit=20)
                 if s.engine == client and s.cwd == str(here)), None)


def is_print_run(client: str, args: list[str]) -> bool:
    """Whether the engine command line (without the program) runs headless, printing its answer."""
    head = args[: args.index("--")] if "--" in args else args
    if client == "codex":
        return head[:1] == ["exec"]
    return bool({"-p", "--print", "--prompt"} & set(head))


def engine_env(client: str, args: list[str], base: Mapping[str, str]) -> dict[str, str]:
    """The engine's environment: ITACHI_CLIENT and ITACHI_ENABLED set; for interactive Claude
    runs CLAUDE_CODE_OAUTH_TOKEN is dropped so the subscription login is used (except over SSH,
    where there is no login to fall back on)."""
    env = dict(base)
    env["ITACHI_CLIENT"] = client
    env["ITACHI_ENABLED"] = "1"
    if client == "claude" and not is_print_run(client, args) and not over_ssh(base):
        env.pop("CLAUDE_CODE_OAUTH_TOKEN", None)
    return env


def engine_program(client: str, env: Mapping[str, str]) -> list[str] | None:
    """The engine's program: ITACHI_<CLIENT>_BIN, else ITACHI_ENGINE_<CLIENT>_COMMAND (as the agent
    reads it), else the client's name; resolved on PATH. None when it cannot be found."""
    override = env.get(f"ITACHI_{client.upper()}_BIN") or ""
    words = [override] if override else shlex.split(env.get(f"ITACHI_ENGINE_{client.upper()}_COMMAND", ""))
    words = words or [client]
    executable = shutil.which(words[0], path=env.get("PATH"))
    return [executable, *words[1:]] if executable else None


def prepared_env(client: str, args: list[str]) -> dict[str, str]:
    """os.environ with the engine's credentials added; raises KeyFileError for an unsafe key file."""
    base = dict(os.environ)
    base.update(engine_credentials(client, base, claude_config_dir(base)))
    return engine_env(client, args, base)
