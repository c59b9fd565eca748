"""/steer, /queue, and plain text in a running task's topic: a message for the task's engine.

The message goes to the task's machine through the task service (`TaskService.steer`); the
agent acknowledges it in the topic once it steered the running turn or queued it for the next.
"""

from __future__ import annotations

from telegram import Update

from chalicelib.kernel.errors import InvalidInput
from chalicelib.tasks.domain.steering import QUEUE, STEER
from chalicelib.telegram.bot.context import Context, blocking, command, services, topic_of
from chalicelib.telegram.domain.bot_commands import spec
from chalicelib.telegram.domain.telegram_records import Topic


@command("steer")
async def steer(update: Update, context: Context) -> None:
    """/steer <message> in a task's topic: into the running turn where the engine takes it."""
    await _send(update, context, STEER)


@command("queue")
async def queue(update: Update, context: Context) -> None:
    """/queue <message> in a task's topic: the task's next turn."""
    await _send(update, context, QUEUE)


async def _send(update: Update, context: Context, mode: str) -> None:
    message = update.effective_message
    text = message.text.partition(" ")[2].strip() if message and message.text else ""
    if not text:
        raise InvalidInput(f"Usage: {spec(mode).usage} (in a running task's topic)")
    topic = await _task_topic(update, context)
    if topic is None:
        raise InvalidInput(f"/{mode} works in a task's topic.")
    await blocking(services(context).tasks.steer, topic.ref_id, text, mode=mode,
                   key=f"telegram:{update.update_id}")


async def task_text(update: Update, context: Context, topic: Topic, text: str) -> bool:
    """Plain text in a task's topic: sent in the configured mode if the task runs; False if not."""
    bot = services(context)
    task = await blocking(bot.tasks.get, topic.ref_id)
    if task.status.value != "running":
        return False
    await blocking(bot.tasks.steer, task.id, text, mode=bot.task_text, key=f"telegram:{update.update_id}")
    return True


async def _task_topic(update: Update, context: Context) -> Topic | None:
    chat = update.effective_chat
    topic = await blocking(services(context).topics.by_thread, chat.id if chat else 0, topic_of(update))
    return topic if topic is not None and topic.kind == "task" else None

