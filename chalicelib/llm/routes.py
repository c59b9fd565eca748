"""GET /api/usage: LLM spend by day and purpose, and today's budget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_query
from chalicelib.llm.domain.llm_budget import DailyBudget

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings
    from chalicelib.llm.services.ports import LanguageModel, LlmUnits


class Uses:
    llm: LanguageModel
    llm_units: LlmUnits
    settings: Settings


bp = ApiBlueprint(__name__, Uses)


class UsageQuery(WireModel):
    days: int = Field(default=7, ge=1, le=366)


@bp.route("/api/usage", methods=["GET"])
def usage() -> Response:
    from chalicelib.llm.services.usage_report import usage_report  # lazy: cold start

    query = parse_query(bp.current_request, UsageQuery)
    container = bp.services
    s = container.settings
    budget = DailyBudget(usd=s.llm_daily_budget_usd, tokens=s.llm_daily_budget_tokens)
    return ok(usage_report(container.llm_units, budget, model=container.llm.model,
                           enabled=container.llm.enabled, days=query.days))
