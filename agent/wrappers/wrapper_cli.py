"""``itachi [claude|codex|gemini] ...``, ``itachic`` and ``itachig``: run an engine with memory.

The command line and environment come from `engine_command`; a run that ends on a rate limit
hands over to the next engine (`wrapper_switch`). ``itachi`` itself is the Claude wrapper whenever
its first argument is a flag (other than -h/--help) or a word that is not one of its commands:
``itachi --dp "fix it"`` is ``itachi claude --dp "fix it"``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agent.wrappers.engine_command import (
    CLIENTS,
    engine_program,
    expand_args,
    is_print_run,
    prepared_env,
    resumed_session,
)
from agent.wrappers.engine_keys import KeyFileError
from hooks.memory_md import claude_config_dir


def run(client: str, argv: list[str]) -> int:
    """Run the engine; a rate-limited run hands over to the next engine (`wrapper_switch`)."""
    from agent.wrappers import wrapper_switch

    command = expand_args(client, argv, Path.cwd(), claude_config_dir())
    try:
        env = prepared_env(client, command[1:])
    except KeyFileError as exc:
        print(f"itachi: {exc}", file=sys.stderr)
        return 2
    if {"--c", "--cds", "--cdp"} & set(argv[: argv.index("--")] if "--" in argv else argv):
        session = resumed_session(client, command[1:], Path.cwd())
        if session:
            print(f"itachi: continuing {client} session {session}", file=sys.stderr)
    program = engine_program(client, env)
    if program is None:
        print(f"itachi: {env.get(f'ITACHI_{client.upper()}_BIN') or client} not found on PATH",
              file=sys.stderr)
        return 127
    sys.stdout.flush()
    if not wrapper_switch.enabled(env):
        if os.name != "nt":
            os.execve(program[0], [*program, *command[1:]], env)  # noqa: S606  # argv, no shell
        return subprocess.call([*program, *command[1:]], env=env)
    return wrapper_switch.run_with_fallback(client, argv, [*program, *command[1:]], env,
                                            headless=is_print_run(client, command[1:]))


def goes_to_engine(argv: list[str], commands: Collection[str]) -> bool:
    """`itachi <argv>` is a Claude run: a leading flag (not -h/--help) or an unknown first word."""
    if not argv or argv[0] in ("-h", "--help"):
        return False
    return argv[0].startswith("-") or argv[0] not in commands


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
