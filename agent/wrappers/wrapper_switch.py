"""Engine auto-switch for wrapper runs (`itachi ...`, `itachi claude|codex|gemini ...`, `itachic`,
`itachig`): a run that ends on a rate limit hands over to the next engine in the machine's order.

The decision and the handoff are a task's (`chalicelib/contracts/engine_switch.py`): the
order is the engine that ran first, then the machine's priority (`ITACHI_ENGINE_PRIORITY` or
`agent.json`, as the agent reads it); the loop guard never tries an engine twice, stops after
`MAX_SWITCHES`, and never switches from a run whose environment has `ITACHI_FALLBACK_ACTIVE=1`
(every fallback engine is started with it). The next engine's first prompt is the original
prompt with a `## Handoff from <engine>` section: what the previous engine did (tools, files,
last words) and the files changed in the working tree. The switch is printed on stderr.

`ITACHI_AUTO_SWITCH=0` turns this off: the engine then replaces the wrapper process (POSIX).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent.wrappers.engine_keys import KeyFileError
from agent.wrappers.wrapper_watch import WatchedRun, run_headless, run_interactive
from chalicelib.contracts.engine_switch import (
    FALLBACK_ENV,
    KNOWN_ENGINES,
    MAX_SWITCHES,
    engine_order,
    handoff_prompt,
    plan_switch,
)

AUTO_SWITCH_ENV = "ITACHI_AUTO_SWITCH"
NO_PROMPT = "Continue the interrupted work in this directory."
# Options of the three CLIs that take a value: their values are never the prompt.
_VALUE_OPTIONS = frozenset({
    "--model", "-m", "--output-format", "-o", "--input-format", "--resume", "-r", "--session-id",
    "--permission-mode", "--settings", "--max-turns", "--append-system-prompt", "--system-prompt",
    "--fallback-model", "--add-dir", "--mcp-config", "--allowedTools", "--allowed-tools",
    "--disallowedTools", "--disallowed-tools", "--approval-mode", "--sandbox", "--profile",
    "--config", "--cd", "-C", "--image", "--include-directories", "--extensions", "-e",
})
_ENGINE_VALUE_OPTIONS = {"claude": frozenset(), "gemini": frozenset(),
                         "codex": frozenset({"-c", "-s", "-i", "-p"})}
_GEMINI_PROMPT = ("-p", "--prompt", "-i", "--prompt-interactive")  # the option's value is the prompt
_STREAM_ARGS = {"claude": ["--output-format", "stream-json", "--verbose"], "codex": ["--json"],
                "gemini": ["--output-format", "stream-json"]}
_SKIP_FLAGS = frozenset({"--ds", "--dp", "--dangerously-skip-permissions", "--yolo", "-y",
                         "--dangerously-bypass-approvals-and-sandbox"})


def enabled(env: Mapping[str, str]) -> bool:
    """Whether a wrapper run is watched for a rate limit (not in a fallback run, not when turned off)."""
    return env.get(AUTO_SWITCH_ENV, "1").lower() not in {"0", "false", "no"} and env.get(FALLBACK_ENV) != "1"


def original_prompt(client: str, argv: Sequence[str]) -> str:
    """The prompt the user gave on the command line: its last word that is not an option or an
    option's value (empty for an interactive run started without one)."""
    words = list(argv[: list(argv).index("--")] if "--" in argv else argv)
    takes_value = _VALUE_OPTIONS | _ENGINE_VALUE_OPTIONS.get(client, frozenset())
    for index in range(len(words) - 1, -1, -1):
        word, before = words[index], words[index - 1] if index else ""
        if client == "gemini" and before in _GEMINI_PROMPT:
            return word
        if word.startswith("-") or before in takes_value:
            continue
        if word not in ("exec", "resume"):
            return word
    return ""


def machine_order(first: str, env: Mapping[str, str]) -> tuple[str, ...]:
    from agent.agent_config import AgentConfig
    from chalicelib.contracts.local_home import itachi_home

    try:
        priority = AgentConfig.load(itachi_home(None), env).engine_priority
    except (ValueError, OSError):
        priority = KNOWN_ENGINES
    return engine_order(first, priority)


def fallback_args(engine: str, argv: Sequence[str], prompt: str, *, headless: bool) -> list[str]:
    """The next engine's arguments (shortcuts unexpanded): the same mode, permissions and output."""
    skip = bool(_SKIP_FLAGS & set(argv))
    if headless:
        stream = _STREAM_ARGS[engine] if {"stream-json", "--json"} & set(argv) else []
        return [*stream, "--dp" if skip else "--p", prompt]
    return [*(["--ds"] if skip else []), *(["-i"] if engine == "gemini" else []), prompt]


def changed_files(cwd: Path) -> list[str]:
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=cwd,
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    return sorted(line[3:].split(" -> ")[-1] for line in done.stdout.splitlines() if line.strip())


def _say(text: str) -> None:
    print(f"itachi: {text}", file=sys.stderr, flush=True)


def run_with_fallback(client: str, argv: list[str], command: list[str], env: Mapping[str, str], *,
                      headless: bool) -> int:
    """Run `command` (the engine's full argv) and, while runs end on a rate limit, the next engines
    (headless: a print run, its output read; else interactive, on the terminal)."""
    from agent.wrappers.engine_command import engine_program, expand_args, prepared_env
    from hooks.memory_md import claude_config_dir

    cwd = Path.cwd()
    order, tried, switches = machine_order(client, env), [client], 0
    engine, prompt = client, original_prompt(client, argv) or NO_PROMPT
    run = _watch(engine, command, env, cwd, headless)
    while run.rate_limited:
        decision = plan_switch(order, tried, switches, fallback_active=env.get(FALLBACK_ENV) == "1")
        if decision.next_engine is None:
            _say(f"{engine} is rate limited ({run.reason}); no switch: {decision.reason}")
            return run.exit_code
        following = decision.next_engine
        tried.append(following)
        args = expand_args(following, fallback_args(following, argv, handoff_prompt(
            prompt, engine, run.summary.progress_notes(), changed_files(cwd)), headless=headless),
            cwd, claude_config_dir(env))
        try:
            next_env = {**prepared_env(following, args[1:]), FALLBACK_ENV: "1"}
        except KeyFileError as exc:
            _say(f"{engine} is rate limited; {following} not started: {exc}")
            return run.exit_code
        program = engine_program(following, next_env)
        if program is None:
            _say(f"{engine} is rate limited; {following} is not installed, trying the next engine")
            continue
        switches += 1
        _say(f"{engine} hit a rate limit ({run.reason}); switching to {following} "
             f"(switch {switches}/{MAX_SWITCHES}) with a handoff of what {engine} did:\n"
             f"{run.summary.progress_notes()}")
        engine = following
        run = _watch(engine, [*program, *args[1:]], next_env, cwd, headless)
    return run.exit_code


def _watch(engine: str, command: list[str], env: Mapping[str, str], cwd: Path, headless: bool) -> WatchedRun:
    return run_headless(engine, command, env) if headless else run_interactive(engine, command, env, cwd)
