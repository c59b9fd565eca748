"""The engine processes of a task: started in the worktree, their NDJSON read line by line; a message
that waits past the engine's end becomes a turn resuming its session (`task_inbox`)."""

from __future__ import annotations

import queue
import subprocess
import threading
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from agent.engines import process_tree
from agent.engines.approval_env import approval_env
from agent.engines.approval_relay import ApprovalRelay, relay_for
from agent.engines.definitions import Engine, with_system_prompt
from agent.engines.engine_lines import pump, read_lines
from agent.engines.engine_run import RunSummary
from agent.engines.gated_turn import GATED, run_gated_turn
from agent.engines.plan_gate import PlanGate, gates_plan
from agent.tasks.engine_output import take_all, take_event
from agent.tasks.task_inbox import take_turns
from agent.tasks.worktrees import Workspace
from chalicelib.contracts.engine_events import EngineEvent
from chalicelib.contracts.engine_switch import FALLBACK_ENV

if TYPE_CHECKING:
    from agent.tasks.task_runner import TaskRunner

def _run_gated(runner: TaskRunner, engine: Engine, prompt: str, resume: str | None, ws: Workspace,
               env: dict[str, str], relay: ApprovalRelay, summary: RunSummary) -> int | None:
    """One turn of Codex or Gemini asking the task's topic before its tool calls (`engines/gated_turn.py`);
    `resume`: the engine session a later turn continues."""
    def forward(event: EngineEvent) -> None:
        take_event(runner, event, summary)

    def attach(proc: subprocess.Popen[str] | None) -> None:
        previous = runner.set_process(proc)
        if previous is not None:
            runner.ctx.registry.forget(previous.pid)
        if proc is not None:
            runner.ctx.registry.record(proc.pid, runner.task_id)
            runner.cost_guard.engine_started()
            runner.event("engine_started", f"{engine.name} started", {"engine": engine.name, "pid": proc.pid})

    logs = runner.ctx.config.home / "logs" / "tasks"
    with open(logs / f"{runner.task_id}-{runner.attempt}-{engine.name}.stderr", "a") as stderr:
        options = runner.task.get("engine_options")
        text = with_system_prompt(prompt, engine.name, options) if resume is None else prompt
        code = run_gated_turn(engine, text, resume,
                              cwd=ws.path, env=env, stderr=stderr, relay=relay, forward=forward,
                              attach=attach, options=options)
    runner.event("engine_exited", f"{engine.name} exited with code {code}", {"engine": engine.name,
                                                                             "exit_code": code})
    return code


def run_engine(runner: TaskRunner, name: str, prompt: str, ws: Workspace, *,
               fallback: bool) -> tuple[RunSummary, int | None]:
    """Run `name` on `prompt` in the worktree, then each message still waiting as a turn resuming its
    session; return what it did and its last exit code."""
    ctx, summary = runner.ctx, RunSummary(name)
    engine = ctx.engine(name)
    runner.engine_name = name  # how a message's attached files are named to it
    options = runner.task.get("engine_options") or {}
    env = {**ctx.config.env, "ITACHI_TASK_ID": runner.task_id, "ITACHI_TASK_ATTEMPT": str(runner.attempt),
           "ITACHI_PROJECT": runner.task["project"], "ITACHI_CLIENT": name,
           **approval_env(runner.task, ctx.config.env)}
    if fallback:
        env[FALLBACK_ENV] = "1"
    if options.get("run_id"):  # a subagent run: its hooks flush notes to it, its tools name it
        env["ITACHI_AGENT_RUN_ID"] = str(options["run_id"])
        env["ITACHI_AGENT_PROFILE"] = str(options.get("profile") or "")
    logs = ctx.config.home / "logs" / "tasks"
    logs.mkdir(parents=True, exist_ok=True)
    if runner.stopped:
        return summary, None
    relay = relay_for(ctx.api, runner.task, ctx.config.env)
    gate = PlanGate(relay) if relay is not None and gates_plan(name, options, relay) else None
    relay = relay if name in GATED else None
    if relay is not None:  # Codex or Gemini under approvals: each turn in its approval protocol
        code = _run_gated(runner, engine, prompt, None, ws, env, relay, summary)
        while summary.succeeded(code) and summary.session_id and not runner.stopped:
            message = runner.inbox.take()  # a message that came after the last turn: resume with it
            if message is None:
                break
            code = _run_gated(runner, engine, message[1], summary.session_id, ws, env, relay, summary)
        return summary, code
    with open(logs / f"{runner.task_id}-{runner.attempt}-{name}.stderr", "w") as stderr:
        # Claude Code reads its turns on stdin, so a message can steer the running turn.
        argv = (engine.session_argv(options, prompt_tool=gate is not None) if engine.streams_input
                else engine.task_argv(prompt, options))
        code = _run_process(runner, engine, argv, prompt, ws, env, stderr, summary, gate)
        while summary.succeeded(code) and summary.session_id and not runner.stopped:
            message = runner.inbox.take()  # a message that came after the last turn: resume with it
            if message is None:
                break
            argv = resume_argv(engine, options, message[1], summary.session_id, gate)
            code = _run_process(runner, engine, argv, message[1] if engine.streams_input else None, ws, env,
                                stderr, summary, gate)
    return summary, code


def resume_argv(engine: Engine, options: Mapping[str, Any], text: str, session_id: str,
                gate: PlanGate | None) -> list[str]:
    """A later process of the task, resuming the engine's session with the task's engine options:
    Claude reads `text` as its first stream-json turn and stays in plan mode until `gate`'s plan
    is approved (then it edits, as the approval set)."""
    if not engine.streams_input:
        return engine.turn_argv(text, session_id, options)
    if gate is not None and gate.approved:
        options = {**options, "permission_mode": "acceptEdits"}
    return engine.session_argv(options, resume=session_id, prompt_tool=gate is not None)


def _run_process(runner: TaskRunner, engine: Engine, argv: list[str], first_turn: str | None,
                 ws: Workspace, env: dict[str, str], stderr: IO[str], summary: RunSummary,
                 gate: PlanGate | None = None) -> int | None:
    """One engine process to its end (`first_turn` on stdin for a stream-json engine, its plan asked
    through `gate`); its exit code."""
    ctx, name = runner.ctx, engine.name
    interactive = engine.streams_input and first_turn is not None
    try:
        proc = process_tree.start(argv, cwd=ws.path, env=env, stderr=stderr,
                                  stdin=subprocess.PIPE if interactive else subprocess.DEVNULL)
    except OSError as exc:
        summary.errors.append(f"cannot start {name}: {exc}")
        return None
    ctx.registry.record(proc.pid, runner.task_id)
    runner.set_process(proc)
    runner.cost_guard.engine_started()
    runner.event("engine_started", f"{name} started", {"engine": name, "pid": proc.pid})
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=pump, args=(proc.stdout, lines), daemon=True).start()
    if interactive:
        assert first_turn is not None
        take_turns(runner, engine, proc, first_turn, read_lines(proc, lines), summary, gate)
    else:
        take_all(runner, engine, read_lines(proc, lines), summary)
    code = proc.wait()
    if process_tree.group_alive(proc.pid):  # background children the engine left behind
        process_tree.kill_tree(proc, grace_s=0.5)
    runner.set_process(None)
    ctx.registry.forget(proc.pid)
    runner.event("engine_exited", f"{name} exited with code {code}", {"engine": name, "exit_code": code})
    return code
