"""Install and uninstall Itachi's hooks in Claude Code, Codex or Gemini CLI settings.

Every existing setting and hook is kept; re-running is a no-op. The command is
``<python> -I -S <...>/hooks/launch.py <hook> --itachi-client <client>`` (no `site`: see
`hooks.launch`). Our entries are recognised by ``--itachi-client`` after ``hooks/launch.py
<hook>``, or after ``-m hooks.<name>`` (the form written before, replaced in place on the next
install): an argument means the same in POSIX shells, cmd.exe and PowerShell (an
``ITACHI_HOOK=1 cmd`` prefix would not), and it also tells the hook which client called it.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from agent.installers.client_settings import (
    CLIENTS,
    MARKER,
    InstallError,
    load_settings,
    save_settings,
    settings_path,
)

# The launcher form (path quoted or not, either slash) and the older `-m hooks.<name>` form.
_OURS = re.compile(r"(?:-m\s+hooks\.\w+|hooks[\\/]launch\.py['\"]?\s+\w+)\b.*" + re.escape(MARKER))


class HookSpec(NamedTuple):
    event: str
    module: str
    timeout: int  # the client's unit: seconds (Claude Code, Codex), milliseconds (Gemini)
    matcher: str | None = None


# One row per hook entry: the module, its timeout in seconds, then the event it runs on in
# Claude Code, Codex CLI and Gemini CLI ("Event matcher"; "" where the client has no such event).
# Codex: the events seen firing on the real CLI, in Claude Code's file format. Gemini: its own
# event names, timeouts in milliseconds.
_HOOK_TABLE = (
    ("session_start", 15, "SessionStart", "SessionStart", "SessionStart"),
    ("user_prompt_submit", 8, "UserPromptSubmit", "UserPromptSubmit", "BeforeAgent"),
    ("user_prompt_submit", 8, "SubagentStart", "", ""),  # what a subagent starts with
    ("post_tool_use", 10, "PostToolUse Write|Edit|MultiEdit|Read|Bash", "PostToolUse apply_patch|Edit|Write",
     "AfterTool write_file|replace"),
    ("post_tool_use", 10, "PostToolUseFailure", "", ""),
    ("pre_tool_use", 610, "PreToolUse Bash|Write|Edit|MultiEdit|NotebookEdit|WebFetch", "", ""),
    ("pre_compact", 10, "PreCompact", "", "PreCompress"),
    ("stop", 10, "Stop", "Stop", "AfterAgent"),
    ("session_end", 5, "SessionEnd", "SessionEnd", "SessionEnd"),
)


def _client_hooks(column: int, client: str) -> tuple[HookSpec, ...]:
    unit = 1000 if client == "gemini" else 1
    return tuple(HookSpec(cells[column].split(" ")[0], module, seconds * unit,
                          cells[column].partition(" ")[2] or None)
                 for module, seconds, *cells in _HOOK_TABLE if cells[column])


CLIENT_HOOKS: dict[str, tuple[HookSpec, ...]] = {c: _client_hooks(i, c) for i, c in enumerate(CLIENTS)}


def own_launcher() -> str:
    """This install's `hooks/launch.py`."""
    from hooks import launch

    return os.path.realpath(launch.__file__)


def launcher_for(python: str) -> str:
    """The launcher python should run: the one of the itachi installed in that interpreter, else
    this install's (the hooks need only the standard library, so any Python 3.11+ runs them)."""
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return own_launcher()
    try:
        probe = subprocess.run([python, "-I", "-c", "import hooks.launch as m; print(m.__file__)"],
                               capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return own_launcher()
    found = probe.stdout.strip()
    return found if probe.returncode == 0 and found.endswith("launch.py") else own_launcher()


def launch_argv(module: str, python: str, launcher: str | None = None) -> list[str]:
    """The argv that runs hooks.<module> with python, without `site` (see `hooks.launch`)."""
    return [python, "-I", "-S", launcher or own_launcher(), module]


def hook_command(module: str, client: str, python: str, windows: bool | None = None,
                 launcher: str | None = None) -> str:
    """The shell command that runs hooks.<module> for client with this python."""
    argv = [*launch_argv(module, python, launcher), MARKER, client]
    on_windows = os.name == "nt" if windows is None else windows
    return subprocess.list2cmdline(argv) if on_windows else shlex.join(argv)


def is_itachi_hook(hook: Any) -> bool:
    """True for a hook entry that install_hooks wrote."""
    return isinstance(hook, dict) and bool(_OURS.search(str(hook.get("command") or "")))


def install_hooks(scope: str, client: str, cwd: Path, python: str = sys.executable) -> Path:
    """Merge Itachi's hook entries into client's settings; return the file's path."""
    path = settings_path(scope, client, cwd)
    settings = load_settings(path)
    hooks = _strip_ours(settings)
    launcher = launcher_for(python)
    for spec in CLIENT_HOOKS[client]:
        hooks.setdefault(spec.event, []).append(_group(spec, client, python, launcher))
    settings["hooks"] = hooks
    save_settings(path, settings)
    return path


def uninstall_hooks(scope: str, client: str, cwd: Path) -> Path:
    """Remove exactly the entries install_hooks added; return the file's path."""
    path = settings_path(scope, client, cwd)
    if path.exists():
        settings = load_settings(path)
        hooks = _strip_ours(settings)
        if hooks:
            settings["hooks"] = hooks
        else:
            settings.pop("hooks", None)
        save_settings(path, settings)
    return path


def _group(spec: HookSpec, client: str, python: str, launcher: str) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "timeout": spec.timeout,
                            "command": hook_command(spec.module, client, python, launcher=launcher)}
    if client == "gemini":
        hook["name"] = "itachi-" + spec.module.replace("_", "-")
    return {"matcher": spec.matcher, "hooks": [hook]} if spec.matcher else {"hooks": [hook]}


def _strip_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """Return settings' hooks without our entries (empty groups and events dropped)."""
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError('"hooks" in the settings file is not an object')
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept[event] = groups
            continue
        remaining = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list) or not any(is_itachi_hook(h) for h in inner):
                remaining.append(group)
            elif others := [h for h in inner if not is_itachi_hook(h)]:
                remaining.append({**group, "hooks": others})
        if remaining or not groups:
            kept[event] = remaining
    return kept


def add_parser(subparsers: Any) -> None:
    """Register ``install-hooks`` and ``uninstall-hooks`` on the itachi CLI."""
    for name, func, verb in (("install-hooks", _install, "Install"),
                             ("uninstall-hooks", _uninstall, "Remove")):
        parser = subparsers.add_parser(name, help=f"{verb} Itachi's hooks in an agent CLI")
        parser.add_argument("--scope", choices=("user", "project"), default="user")
        parser.add_argument("--client", choices=tuple(CLIENT_HOOKS), default="claude")
        if func is _install:
            parser.add_argument("--python", default=sys.executable,
                                help="interpreter the hooks run with (default: this one)")
        parser.add_argument("--no-mcp", action="store_true",
                            help=f"leave the client's MCP servers alone ({verb.lower()} only the hooks)")
        parser.set_defaults(func=func)


def _step(run: Callable[[], Path], done: str) -> bool:
    """Run one install or uninstall step: print where it went, or the error (and say it failed)."""
    try:
        path = run()
    except (InstallError, OSError) as exc:
        print(f"itachi: {exc}", file=sys.stderr)
        return False
    print(f"{done} {path}")
    return True


def _install(args: argparse.Namespace) -> int:
    from agent.installers.install_mcp import install_mcp

    cwd = Path.cwd()
    if not _step(lambda: install_hooks(args.scope, args.client, cwd, args.python),
                 f"Installed Itachi hooks for {args.client} in"):
        return 1
    if not args.no_mcp and not _step(lambda: install_mcp(args.scope, args.client, cwd, args.python),
                                     f"Registered the Itachi MCP server (itachi mcp) for {args.client} in"):
        return 1
    if not _runs_hooks(args.python):
        print(f"warning: {args.python} cannot run the hooks (Python 3.11 or later is needed); "
              "choose another with --python", file=sys.stderr)
    if args.client == "codex":
        print("Codex: hooks need [features] hooks = true (codex_hooks on older versions) in "
              "config.toml and must be trusted once in Codex.")
    return 0


def _runs_hooks(python: str) -> bool:
    """Whether python starts the hooks' runtime through the launcher, as the installed commands do."""
    from hooks.launch import CHECK

    try:
        probe = subprocess.run(launch_argv(CHECK, python, launcher_for(python)), capture_output=True)
    except OSError:
        return False
    return probe.returncode == 0


def _uninstall(args: argparse.Namespace) -> int:
    from agent.installers.install_mcp import uninstall_mcp

    cwd = Path.cwd()
    if not _step(lambda: uninstall_hooks(args.scope, args.client, cwd),
                 f"Removed Itachi hooks for {args.client} from"):
        return 1
    if not args.no_mcp and not _step(lambda: uninstall_mcp(args.scope, args.client, cwd),
                                     f"Removed the Itachi MCP server for {args.client} from"):
        return 1
    return 0
