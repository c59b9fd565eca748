"""/spawn and /agents: subagent runs in their own topics, and their cron jobs."""

from __future__ import annotations

from telegram import Update

from chalicelib.agents.services.runs import SpawnRequest
from chalicelib.kernel.errors import InvalidInput, Unavailable
from chalicelib.telegram.bot.context import Context, available, blocking, command, reply, services, topic_link
from chalicelib.telegram.bot.topics import open_topic, register, send_header
from chalicelib.telegram.domain.bot_commands import short_id, spec
from chalicelib.telegram.domain.topic_story import topic_title


def _usage(name: str) -> InvalidInput:
    return InvalidInput(f"Usage: {spec(name).usage}")


@command("spawn")
async def spawn(update: Update, context: Context) -> None:
    args = context.args or []
    if len(args) < 2:
        raise _usage("spawn")
    runs = available(services(context).agent_runs, "Subagents are not available here.")
    profile_name, task = args[0].lower(), " ".join(args[1:])
    profile = await blocking(runs.profile, profile_name)  # an unknown profile is answered before a topic
    title = topic_title(profile.name, task)
    place = await open_topic(update, context, title)
    header = f"🤖 {profile.name}: {task}\n\n{profile.description}\nProgress streams here; /cancel stops it."
    header_sent = await send_header(context, place, header)
    run = await blocking(runs.spawn, SpawnRequest(
        profile.name, task, telegram_chat_id=place.chat_id, telegram_topic_id=place.topic_id or None,
        idempotency_key=f"telegram:{update.update_id}"))
    if run.task_id:
        await register(context, "task", run.task_id, place, title, header, header_sent)
    link = topic_link(place.chat_id, place.topic_id) if place.topic_id else None
    where = f" Progress: {link}" if link else ""
    await reply(update, context, f"{profile.name} run {short_id(run.id)} started.{where}")


@command("agents")
async def agents(update: Update, context: Context) -> None:
    args, bot = context.args or [], services(context)
    if bot.agent_runs is None or bot.agent_cron is None:
        raise Unavailable("Subagents are not available here.")
    if args[:1] == ["cron"]:
        if len(args) == 3 and args[1] == "rm":
            await blocking(bot.agent_cron.remove, args[2])
            await reply(update, context, f"Cron job {args[2]} removed.")
            return
        if len(args) != 1:
            raise _usage("agents")
        jobs = await blocking(bot.agent_cron.jobs)
        lines = [f"{short_id(j.id)} {j.profile} `{j.schedule}` "
                 f"{'next ' + j.next_fire_at.strftime('%a %d %b %H:%M UTC') if j.next_fire_at else 'done'}: "
                 f"{j.prompt[:80]}" for j in jobs]
        await reply(update, context, "\n".join(["Cron jobs:", *lines]) if lines else "No cron jobs.")
        return
    if args:
        raise _usage("agents")
    runs = await blocking(bot.agent_runs.search, status="active", limit=30)
    lines = [f"{short_id(r.id)} {r.profile} ({r.origin}): {r.prompt[:80]}" for r in runs]
    await reply(update, context, "\n".join(["Active subagent runs:", *lines]) if lines else
                "No active subagent runs. Start one with /spawn <profile> <task>.")
