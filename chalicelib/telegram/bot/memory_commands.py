"""/recall, /learn and /feedback: memory search, taught rules, and lesson reinforcement."""

from __future__ import annotations

from telegram import Update

from chalicelib.telegram.bot.context import Context, blocking, itachi, reply, topic_of
from chalicelib.telegram.domain.bot_commands import parse_feedback, parse_learn, parse_query, short_id

GLOBAL_PROJECT = "_global"


async def _project_here(update: Update, context: Context) -> str | None:
    chat = update.effective_chat
    telegram = itachi(context).telegram
    topic = await blocking(telegram.topics.by_thread, chat.id if chat else 0, topic_of(update))
    return await blocking(telegram.project_of, topic) if topic is not None else None


async def recall(update: Update, context: Context) -> None:
    query = parse_query(context.args or [], "recall")
    project = await _project_here(update, context)
    hits = await blocking(itachi(context).telegram.recall, query, project)
    if not hits:
        await reply(update, f"Nothing in memory matches “{query}”.")
        return
    await reply(update, f"Memory for “{query}”:\n\n" + "\n\n".join(hits))


async def learn(update: Update, context: Context) -> None:
    request = parse_learn(context.args or [])
    project = request.project or await _project_here(update, context) or GLOBAL_PROJECT
    taught = await blocking(itachi(context).telegram.teach, project, request.rule)
    verb = "Reinforced an existing rule" if taught.get("outcome") == "reinforced" else "Learned"
    await reply(update, f"{verb} for {project} (confidence {taught.get('confidence', 0.95):.2f}): "
                        f"{taught.get('rule', request.rule)}")


async def feedback(update: Update, context: Context) -> None:
    request = parse_feedback(context.args or [])
    container = itachi(context)
    task = await blocking(container.tasks.get, request.task_ref)
    changed = await blocking(container.telegram.task_feedback.rate, task.id, request.good)
    verdict = "good" if request.good else "bad"
    detail = f"{changed} lesson(s) adjusted" if changed else "no lessons were applied to it"
    await reply(update, f"Thanks: task {short_id(task.id)} rated {verdict}; {detail}.")
