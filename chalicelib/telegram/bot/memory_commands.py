"""/recall, /learn, /feedback and /memory: memory search, taught rules, lesson reinforcement, and
the memory lifecycle's counts, integrity and snapshots."""

from __future__ import annotations

from telegram import Update

from chalicelib.telegram.bot.context import Context, blocking, command, project_here, reply, services
from chalicelib.telegram.domain.bot_commands import (
    parse_feedback,
    parse_learn,
    parse_memory,
    parse_query,
    short_id,
)

GLOBAL_PROJECT = "_global"


@command("recall")
async def recall(update: Update, context: Context) -> None:
    query = parse_query(context.args or [], "recall")
    project = await project_here(update, context)
    bot = services(context)
    hits = await blocking(bot.knowledge.recall, query, project)
    graph = await blocking(bot.graph_recall, query, project or GLOBAL_PROJECT) if bot.graph_recall else ""
    if not hits and not graph:
        await reply(update, context, f"Nothing in memory matches “{query}”.")
        return
    found = [f"Memory for “{query}”:\n\n" + "\n\n".join(hits)] if hits else []
    await reply(update, context, "\n\n".join([*found, *([f"Graph memory:\n{graph}"] if graph else [])]))


@command("learn")
async def learn(update: Update, context: Context) -> None:
    request = parse_learn(context.args or [])
    project = request.project or await project_here(update, context) or GLOBAL_PROJECT
    taught = await blocking(services(context).knowledge.teach, project, request.rule)
    verb = {"reinforced": "Reinforced an existing rule", "superseded": "Learned (it replaces the rule it "
            "contradicts)", "flagged": "Learned (it contradicts a more confident rule)"}.get(
        str(taught.get("outcome")), "Learned")
    await reply(update, context, f"{verb} for {project} (confidence {taught.get('confidence', 0.95):.2f}): "
                                 f"{taught.get('rule', request.rule)}")


@command("feedback")
async def feedback(update: Update, context: Context) -> None:
    request = parse_feedback(context.args or [])
    bot = services(context)
    task = await blocking(bot.tasks.get, request.task_ref)
    changed = await blocking(bot.feedback.rate, task.id, request.good)
    verdict = "good" if request.good else "bad"
    detail = f"{changed} lesson(s) adjusted" if changed else "no lessons were applied to it"
    learned = ""
    if request.note:
        found = await blocking(bot.feedback.learn_from_note, task, request.note) or {}
        learned = (" Your note is queued for learning." if found.get("queued") else
                   f" From your note: {found.get('rules_stored', 0) + found.get('rules_reinforced', 0)} "
                   f"rule(s), {found.get('rlm_promoted', 0)} lesson(s).")
    await reply(update, context, f"Thanks: task {short_id(task.id)} rated {verdict}; {detail}.{learned}")


@command("memory")
async def memory(update: Update, context: Context) -> None:
    request = parse_memory(context.args or [])
    project = request.project or await project_here(update, context)
    admin = services(context).memory_admin
    if request.action == "stats":
        await reply(update, context, await blocking(admin.stats, project))
    elif request.action == "check":
        await reply(update, context, await blocking(admin.check, project))
    elif project is None:
        await reply(update, context, "Which project? /memory snapshot <name> <project> (or ask in its topic)")
    else:
        await reply(update, context, await blocking(admin.snapshot, project, str(request.name)))
