"""Stop a task's engine as soon as what it has spent passes the task's cost budget.

Engines report their cost only at a turn's `result` (Claude Code's `total_cost_usd` is the
session's running total: in a session fed turn by turn the latest figure is the whole cost);
Claude Code also reports each model response's token usage (`message.usage` on its
`assistant` lines) as it goes. The guard adds to the latest result's figure an estimate of the
responses since (tokens at the model's list price), so a turn that overspends is stopped in
the middle, not after it. Codex and Gemini report no cost, only each turn's token usage on its
result: the guard prices it (`chalicelib/llm/domain/llm_budget.py`) and adds it. When
the total passes the budget it posts a notice and stops the run as a budget stop
(`timed_out`); what the engine said so far stays the run's summary, and the spent amount is
its reported cost. A chat user's task names the cap that set its budget (`engine_options.budget`,
`chalicelib/tasks/domain/task_budget.py`) and the notice names it. A task with a budget also
reports its running total as `cost` events as it grows, for the server to count it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from chalicelib.contracts.engine_events import EngineEvent, EventKind
from chalicelib.llm.domain.llm_budget import cost_usd as priced_tokens

if TYPE_CHECKING:
    from agent.tasks.task_runner import TaskRunner

# USD per million tokens: input, output, cache write, cache read (public list prices).
PRICES: tuple[tuple[str, tuple[float, float, float, float]], ...] = (
    ("opus-4-5", (5.0, 25.0, 6.25, 0.50)), ("opus-4-6", (5.0, 25.0, 6.25, 0.50)),
    ("opus-5", (5.0, 25.0, 6.25, 0.50)), ("opus", (15.0, 75.0, 18.75, 1.50)),
    ("haiku-4", (1.0, 5.0, 1.25, 0.10)), ("haiku", (0.80, 4.0, 1.0, 0.08)),
)
DEFAULT_PRICE = (3.0, 15.0, 3.75, 0.30)  # Sonnet's, for Sonnet and any model not listed


def estimate_usd(model: str, usage: dict[str, Any]) -> float:
    """What one response's token usage costs at `model`'s list price."""
    price = next((p for name, p in PRICES if name in model), DEFAULT_PRICE)
    counts = [usage.get(k) for k in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                                     "cache_read_input_tokens")]
    return sum(float(n) * rate for n, rate in zip(counts, price, strict=True)
               if isinstance(n, int | float) and not isinstance(n, bool)) / 1_000_000


def turn_usage_usd(event: EngineEvent, model: str) -> float:
    """What a Codex (`usage`) or Gemini (`stats`) turn result's tokens cost; 0 without them."""
    usage = event.data.get("usage") or event.data.get("stats")
    if not isinstance(usage, Mapping):
        return 0.0

    def count(*keys: str) -> int:
        return sum(int(n) for k in keys if isinstance(n := usage.get(k), int) and not isinstance(n, bool))

    return priced_tokens(model, count("input_tokens", "prompt_tokens"),
                         count("output_tokens", "candidates_tokens", "reasoning_output_tokens"))


def _amount(value: Any) -> float | None:
    """A budget as the task carries it (a number or its decimal text); None: no budget."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class CostGuard:
    def __init__(self, runner: TaskRunner, budget: Any, cap: Mapping[str, Any] | None = None) -> None:
        self._runner = runner
        self.budget = _amount(budget)
        self._cap = cap if isinstance(cap, Mapping) else {}  # the chat user's cap that set the budget
        self._model = ""  # as the engine's init names it (Gemini's), for pricing its tokens
        self._reported = 0.0  # the running total last reported as a `cost` event
        self._before = 0.0  # what the engines that already ended cost (a rate-limit switch starts another)
        self._current = 0.0  # this engine's running total, as its latest result reported it
        self._pending: dict[str, float] = {}  # estimates of responses since the last result, by message id
        self._pending_usd = 0.0  # their sum
        self.tripped = False

    @property
    def spent_usd(self) -> float:
        return self._before + self._current + self._pending_usd

    def engine_started(self) -> None:
        """A new engine process: the last one's figure is final."""
        self._before += self._current
        self._current = 0.0
        self._forget_pending()

    def _forget_pending(self) -> None:
        self._pending.clear()
        self._pending_usd = 0.0

    def see(self, line: str, events: Iterable[EngineEvent]) -> None:
        """Account for one line of the engine's output (and the events parsed from it)."""
        if self.budget is None or self.tripped:
            return
        turn_ended = False
        for event in events:
            if event.kind == EventKind.INIT and event.data.get("model"):
                self._model = str(event.data["model"])
            if event.kind != EventKind.RESULT:
                continue
            turn_ended = True
            cost = event.data.get("cost_usd")
            if isinstance(cost, int | float):  # the session's running total, not the turn's
                self._current = max(self._current, float(cost))
                self._forget_pending()
            elif cost is None:  # Codex, Gemini: this turn's tokens
                self._current += turn_usage_usd(event, self._model)
        if '"usage"' in line and '"assistant"' in line:
            self._estimate(line)
        if self.spent_usd > self.budget:
            self._trip(self.budget)
        elif turn_ended or self.spent_usd - self._reported >= max(0.01, self.budget / 20):
            self._report()

    def _report(self) -> None:
        if self.spent_usd > self._reported:
            self._reported = self.spent_usd
            self._runner.event("cost", f"${self._reported:.4f} spent", {"cost_usd": round(self._reported, 6)})

    def _trip(self, budget: float) -> None:
        self.tripped = True
        spent = self.spent_usd
        cap, cap_usd = self._cap.get("cap"), _amount(self._cap.get("cap_usd"))
        if cap == "daily" and cap_usd is not None:
            text = (f"Daily cap of ${cap_usd:.2f} reached: stopped with ${spent:.4f} spent by this task "
                    f"(${budget:.2f} was left of today's cap)")
        elif cap == "task":
            text = f"Task cap of ${budget:.2f} reached: stopped with ${spent:.4f} spent"
        else:
            text = f"cost budget of ${budget:g} spent (${spent:.4f} so far): stopped"
        self._runner.event("notice", text, {"cost_usd": round(spent, 6), "budget": "cost", "cap": cap})
        self._runner.stop("timed_out")

    def final_cost(self, reported: float | None) -> float | None:
        """The run's cost: what the engines reported, or the guard's figure when it is larger (a run
        stopped mid-turn, or engines that report only tokens)."""
        if self.spent_usd > (reported or 0.0):
            return round(self.spent_usd, 6)
        return reported

    def _estimate(self, line: str) -> None:
        try:
            obj = json.loads(line)
        except ValueError:
            return
        message = obj.get("message") if isinstance(obj, dict) and obj.get("type") == "assistant" else None
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            return
        key = str(message.get("id") or len(self._pending))
        usd = estimate_usd(str(message.get("model") or ""), message["usage"])
        self._pending_usd += usd - self._pending.get(key, 0.0)  # a response's blocks repeat its usage
        self._pending[key] = usd
