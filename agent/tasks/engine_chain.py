"""Run a task's engines in priority order: a rate-limited engine hands over to the next one.

The handoff prompt says what the previous engine did (tools, files, last words); the switch
guard (`plan_switch`, and the server's per-task switch count) keeps the chain finite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.engines.engine_run import RunSummary
from agent.tasks.engine_process import run_engine
from agent.tasks.worktrees import Workspace
from chalicelib.contracts.agent_api import EngineSwitchRequest
from chalicelib.contracts.api_transport import ApiError
from chalicelib.contracts.engine_switch import engine_order, handoff_prompt, plan_switch

if TYPE_CHECKING:
    from agent.tasks.task_runner import TaskRunner


def run_engine_chain(runner: TaskRunner, ws: Workspace) -> tuple[RunSummary, int | None, str, float | None]:
    """Return the last run, its exit code, the engine that ran last and the total cost (if reported)."""
    config = runner.ctx.config
    order = engine_order(runner.task.get("engine"), config.engine_priority)
    engine, prompt = order[0], runner.prompt
    switches = int(runner.task.get("engine_switches") or 0)
    tried: list[str] = []
    cost: float | None = None
    while True:
        run, code = run_engine(runner, engine, prompt, ws, fallback=bool(tried))
        tried.append(engine)
        if run.cost_usd is not None:
            cost = (cost or 0.0) + run.cost_usd
        if runner.stop_reason or not run.rate_limited:
            return run, code, engine, cost
        decision = plan_switch(order, tried, switches, fallback_active=config.fallback_active,
                               max_switches=runner.max_switches)
        if decision.next_engine is None:
            runner.event("notice", f"{engine} is rate limited; no switch: {decision.reason}")
            return run, code, engine, cost
        switch = EngineSwitchRequest(runner.ctx.machine_id, runner.attempt, engine, decision.next_engine,
                                     run.rate_limit_message[:300] or "rate limited")
        try:
            switches = int(runner.post("engine-switch", switch)["engine_switches"])
        except ApiError as exc:
            runner.event("notice", f"engine switch refused: {exc.message}")
            return run, code, engine, cost
        changed = runner.ctx.worktrees.changed_files(ws)
        prompt = handoff_prompt(runner.prompt, engine, run.progress_notes(), changed)
        engine = decision.next_engine
