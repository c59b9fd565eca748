"""The day's LLM budget around one call: reserve its worst case before, settle what it cost after."""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.logging import get_logger
from chalicelib.llm.domain.llm_budget import DailyBudget, check_budget
from chalicelib.llm.services.ports import LlmUnits


class BudgetedCalls:
    """Every reservation and settlement is one transaction on `llm_usage`."""

    enabled = True  # a model is configured (the budget may still skip a call)

    def __init__(self, units: LlmUnits, budget: DailyBudget) -> None:
        self._units = units
        self._budget = budget

    def _reserve(self, purpose: str, model: str, tokens: int, usd: float, *,
                 skipped: str = "LLM call skipped: {reason}; the caller falls back") -> int | None:
        """Reserve the call's worst case if today's budget allows it (one decision at a time); None,
        with the warning `skipped`, when it does not."""
        with self._units() as uow:
            uow.usage.lock_budget()
            verdict = check_budget(self._budget, uow.usage.spent_today(), usd, tokens)
            if verdict.allowed:
                usage_id: int | None = uow.usage.reserve(purpose, model, tokens, usd)
            else:
                uow.usage.skip(purpose, model, verdict.reason)
                usage_id = None
            uow.commit()
        if usage_id is None:
            get_logger().warning(skipped.format(reason=verdict.reason),
                                 extra={"purpose": purpose, "model": model})
        return usage_id

    def _settle(self, usage_id: int, **outcome: Any) -> None:
        with self._units() as uow:
            uow.usage.settle(usage_id, **outcome)
            uow.commit()
