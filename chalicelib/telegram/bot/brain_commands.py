"""/brain (status, on, off, config, reject with a reason), the proposals' Approve / Reject buttons
(Reject asks why; the reply is recorded as the reason), /logs."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import ApplicationHandlerStop

from chalicelib.brain.domain.proposals import (
    parse_callback,
    proposal_asked_about,
    proposal_text,
    reason_question,
)
from chalicelib.kernel.errors import DomainError, InvalidInput, Unavailable
from chalicelib.telegram.bot.context import Context, blocking, command, reply, services

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


def _user(update: Update) -> str:
    user = update.effective_user
    return f"telegram:{user.username or user.id}" if user else "telegram"


@command("brain")
async def brain(update: Update, context: Context) -> None:
    decisions = services(context).brain
    if decisions is None:
        raise Unavailable("The brain is not configured here.")
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
        done = await blocking(decisions.reject, args[1], " ".join(args[2:]), _user(update))
        await reply(update, context, proposal_text(done))
        return
    else:
        raise InvalidInput(USAGE)
    await reply(update, context, _status_text(state))


@command("logs")
async def logs(update: Update, context: Context) -> None:
    tail = services(context).logs
    if tail is None:
        raise Unavailable("Logs are not available here.")
    args = context.args or []
    if len(args) > 1:
        raise InvalidInput("Usage: /logs [task id | function]")
    await reply(update, context, await blocking(tail.last, args[0] if args else None))


async def decided(update: Update, context: Context) -> None:
    """Approve or Reject on a proposal: runs (once) or closes it; the message shows the outcome."""
    query = update.callback_query
    assert query is not None and query.data is not None
    bot = services(context)
    choice = parse_callback(query.data)
    if choice is None or bot.brain is None:
        await bot.telegram.answer_button(query.id, "This button is no longer active.")
        return
    proposal_id, approve = choice
    try:
        if approve:
            done = await blocking(bot.brain.approve, proposal_id, _user(update), notify=False)
        else:
            done = await blocking(bot.brain.reject, proposal_id, "", _user(update), notify=False)
    except DomainError as exc:
        await bot.telegram.answer_button(query.id, exc.message[:190], alert=True)
        return
    await bot.telegram.answer_button(query.id, done.status.capitalize())
    if query.message is not None:
        chat_id = query.message.chat.id
        await bot.telegram.edit(chat_id, query.message.message_id, proposal_text(done))
        if not approve and not done.reject_reason:
            topic = getattr(query.message, "message_thread_id", None) or 0
            await bot.telegram.ask(chat_id, reason_question(done.id), topic_id=topic,
                                   placeholder="the reason")


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
    done = await blocking(bot.brain.reject, short_id, message.text, _user(update))
    await reply(update, context, proposal_text(done))
    raise ApplicationHandlerStop  # the reason is not a message for a session or the assistant
