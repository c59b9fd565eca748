"""/task, /cancel and /status."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial

from telegram import Update

from chalicelib.kernel.errors import InvalidInput
from chalicelib.tasks.domain.task_model import NewTask, Task
from chalicelib.telegram.bot.context import Context, blocking, command, reply, services, topic_link, topic_of
from chalicelib.telegram.bot.topics import open_topic, register, send_header
from chalicelib.telegram.domain.bot_commands import parse_task, parse_task_ref, short_id
from chalicelib.telegram.domain.topic_story import topic_title

ACTIVE = ("queued", "dispatched", "running")


@command("task")
async def task(update: Update, context: Context) -> None:
    request = parse_task(context.args or [])
    bot, user = services(context), update.effective_user
    create: Callable[[NewTask], Task] = bot.tasks.create
    if bot.budgets is not None and user is not None:  # a spent daily cap refuses it before a topic opens
        admitted = await blocking(bot.budgets.allowance, user.id)
        create = partial(bot.budgets.create_task, user.id, admitted=admitted)
    title = topic_title(request.project, request.description)
    place = await open_topic(update, context, title)
    planning = "\n\nClaude plans first: approve its plan here before it edits." if request.plan else ""
    header = (f"📋 {request.project}\n{request.description}{planning}\n\n"
              "Progress streams here; /cancel stops it.")
    header_sent = await send_header(context, place, header)
    created = await blocking(create, NewTask(
        request.project, request.description, telegram_chat_id=place.chat_id,
        telegram_topic_id=place.topic_id or None, idempotency_key=f"telegram:{update.update_id}",
        engine_options={"permission_mode": "plan"} if request.plan else {}))
    await register(context, "task", created.id, place, title, header, header_sent)
    if place.topic_id:  # without a topic the header above lands in this chat already
        link = topic_link(place.chat_id, place.topic_id)
        where = f" Progress: {link}" if link else " Progress streams to its topic."
        branch = await blocking(bot.offers.default_branch, created.project) if bot.offers else None
        on = f" (default branch {branch})" if branch else ""
        await reply(update, context, f"Task {short_id(created.id)} queued for {created.project}{on}.{where}")


@command("cancel")
async def cancel(update: Update, context: Context) -> None:
    bot = services(context)
    ref = parse_task_ref(context.args or [], "cancel", optional=True)
    if ref is None:
        chat = update.effective_chat
        topic = await blocking(bot.topics.by_thread, chat.id if chat else 0, topic_of(update))
        if topic is None or topic.kind != "task":
            raise InvalidInput("Which task? Usage: /cancel <task> (or /cancel in the task's topic)")
        ref = topic.ref_id
    cancelled = await blocking(bot.tasks.cancel, ref)
    if cancelled.status == "running":
        await reply(update, context, f"Stopping task {short_id(cancelled.id)}: its agent is told to stop it.")
    else:
        await reply(update, context, f"Task {short_id(cancelled.id)} cancelled.")


@command("status")
async def status(update: Update, context: Context) -> None:
    bot = services(context)
    tasks = await blocking(bot.tasks.list_tasks, limit=500)
    machines = await blocking(bot.machines.list_machines)
    counts: Counter[str] = Counter(str(t.status.value) for t in tasks if t.status.value in ACTIVE)
    online = [m for m in machines if m["status"] == "online"]
    lines = ["Tasks: " + ", ".join(f"{counts.get(s, 0)} {s}" for s in ACTIVE)]
    lines.append(f"Machines: {len(online)} online of {len(machines)}")
    for m in machines:
        lines.append(f"- {m['id']}: {m['status']}, {m['assigned_tasks']}/{m['max_concurrent']} busy, "
                     f"heartbeat {m['seconds_since_heartbeat']:.0f}s ago")
    recent = [t for t in tasks if t.status.value not in ACTIVE][:5]
    if recent:
        lines += ["", "Recently finished:"]
        lines += [f"- {short_id(t.id)} {t.project}: {t.status.value}" for t in recent]
    await reply(update, context, "\n".join(lines))
