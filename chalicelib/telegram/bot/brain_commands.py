"""/brain (status, on, off, config, reject with a reason), the proposals' Approve / Reject buttons
(Reject asks why; the reply is recorded as the reason), /logs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from chalicelib.brain.domain.proposals import (
    parse_callback,
    proposal_asked_about,
    proposal_text,
    reason_question,
)
from chalicelib.kernel.errors import InvalidInput
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import Context, available, blocking, command, reply, services, who

if TYPE_CHECKING:
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions

USAGE = "Usage: /brain [on|off|proposals|config interval|budget|max <value>|reject <id> <reason>]"


def _status_text(state: dict[str, Any]) -> str:
    last = state.get("last_cycle") or {}
    switch = "ON" if state["enabled"] else "OFF"
    lines = [f"🧠 Brain is {switch}: a cycle every {state['interval_s'] // 60} min, "
             f"at most {state['max_proposals']} proposal(s) each, "
             f"LLM calls today {state['llm_calls_today']}/{state['daily_llm_calls']}.",
             f"Pending proposals: {state['pending_proposals']}."]
    if state.get("last_cycle_at"):
        lines.append(f"Last cycle {state['last_cycle_at'][:16].replace('T', ' ')} UTC: "
                     f"{last.get('observations', 0)} observation(s), {len(last.get('proposals', []))} "
                     f"proposal(s), ranked by {last.get('ranking') or '-'}.")
    return "\n".join(lines)


@command("brain")
async def brain(update: Update, context: Context) -> None:
    decisions = available(services(context).brain, "The brain is not configured here.")
    args = context.args or []
    verb = args[0].lower() if args else "status"
    if verb == "status" and len(args) <= 1:
        state = await blocking(decisions.state)
    elif verb in ("on", "off") and len(args) == 1:
        state = await blocking(decisions.switch, verb == "on")
    elif verb == "config" and len(args) == 3:
        state = await blocking(decisions.configure, args[1].lower(), args[2])
    elif verb == "proposals" and len(args) == 1:
        listed = await blocking(decisions.list, limit=10)
        await reply(update, context, "\n\n".join(proposal_text(p) for p in listed) or "No proposals yet.")
        return
    elif verb == "reject" and len(args) >= 2:
        done = await blocking(decisions.reject, args[1], " ".join(args[2:]), who(update))
        await reply(update, context, proposal_text(done))
        return
    else:
        raise InvalidInput(USAGE)
    await reply(update, context, _status_text(state))


@command("logs")
async def logs(update: Update, context: Context) -> None:
    tail = available(services(context).logs, "Logs are not available here.")
    args = context.args or []
    if len(args) > 1:
        raise InvalidInput("Usage: /logs [task id | function]")
    await reply(update, context, await blocking(tail.last, args[0] if args else None))


@button(parse_callback, lambda bot: bot.brain)
async def decided(press: Press[tuple[str, bool]], decisions: ProposalDecisions) -> None:
    """Approve or Reject on a proposal: runs (once) or closes it; the message shows the outcome."""
    proposal_id, approve = press.choice
    if approve:
        done = await blocking(decisions.approve, proposal_id, who(press.update), notify=False)
    else:
        done = await blocking(decisions.reject, proposal_id, "", who(press.update), notify=False)
    await press.answer(done.status.capitalize())
    await press.edit(proposal_text(done))
    if not approve and not done.reject_reason:
        await press.ask(reason_question(done.id), "the reason")


async def reason_given(update: Update, context: Context) -> None:
    """A reply to "Why reject proposal ...?": recorded as the reason; other replies pass on."""
    message = update.effective_message
    asked = message.reply_to_message if message is not None else None
    bot = services(context)
    if message is None or not message.text or asked is None or bot.brain is None:
        return
    if asked.from_user is None or not asked.from_user.is_bot:
        return
    short_id = proposal_asked_about(asked.text or "")
    if short_id is None:
        return
    done = await blocking(bot.brain.reject, short_id, message.text, who(update))
    await reply(update, context, proposal_text(done))
    raise ApplicationHandlerStop  # the reason is not a message for a session or the assistant
