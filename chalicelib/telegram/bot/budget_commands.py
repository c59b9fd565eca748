"""/budget: today's spend and the cost caps of the sender's tasks, or set one of them."""

from __future__ import annotations

from telegram import Update

from chalicelib.tasks.domain.task_budget import usd
from chalicelib.tasks.services.task_budgets import BudgetStatus, TaskBudgets
from chalicelib.telegram.bot.context import Context, available, blocking, command, reply, services
from chalicelib.telegram.domain.bot_commands import parse_budget


def budgets_of(context: Context) -> TaskBudgets:
    budgets = available(services(context).budgets, "Cost caps are not available on this deployment.")
    return budgets


def budget_text(status: BudgetStatus, *, whose: str = "You") -> str:
    caps, own = status.caps, status.own
    daily = caps.daily_usd
    left = f" (${max(0.0, daily - status.spent_today):,.2f} left)" if daily else ""
    lines = [f"{whose} spent ${status.spent_today:,.2f} today (UTC); "
             f"daily cap: {usd(daily)}{left}{'' if own.daily_usd is not None else ' (default)'}.",
             f"Task cap: {usd(caps.task_usd)}{'' if own.task_usd is not None else ' (default)'} per task.",
             "Set them with /budget task 2.50 or /budget daily 20 (0: no cap)."]
    return "\n".join(lines)


@command("budget")
async def budget(update: Update, context: Context) -> None:
    user = update.effective_user
    assert user is not None
    request, budgets = parse_budget(context.args or []), budgets_of(context)
    if request.cap is None:
        await reply(update, context, budget_text(await blocking(budgets.status, user.id)))
        return
    whom = request.user_id or user.id
    status = await blocking(budgets.set_cap, user.id, whom, request.cap, request.usd)
    whose = "You" if whom == user.id else f"User {whom}"
    done = f"set to {usd(request.usd)}" if request.usd else "removed (no cap)"
    text = f"{request.cap.capitalize()} cap {done}.\n{budget_text(status, whose=whose)}"
    await reply(update, context, text)
