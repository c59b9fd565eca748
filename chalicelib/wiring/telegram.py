"""The Telegram front-end (docs/telegram.md): intake, the gateway, topic streams, reminders and
tool approvals."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
    from chalicelib.telegram.services.topic_streams import StreamPacing
    from chalicelib.wiring.kits import telegram as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.telegram")


def _telegram_gateway(c: Container) -> TelegramGateway:
    """Every Bot API call, on the bot's own loop; the handlers are built when the bot starts.
    python-telegram-bot is imported only here, once the bot itself is used."""
    from chalicelib.telegram.adapters.bot_runtime import BotRuntime
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
    from chalicelib.telegram.bot.handler_table import build_application

    s = c.settings
    return TelegramGateway(BotRuntime(
        lambda: build_application(s.telegram_bot_token, s.telegram_api_url, c.bot_services)))


def _folder_walks(c: Container) -> kit.FolderWalks:
    """The session picker's folder walk: listings asked of the machine's agent on its queue."""
    def machine_folders(machine: str) -> bool:
        return any(m["id"] == machine and m["status"] == "online" and m["repos"]
                   for m in c.machine_registry.list_machines())

    return kit.FolderWalks(c.telegram_uow, c.topic_streams, c.task_queues.send_to_machine, machine_folders)


def _telegram_updates(c: Container) -> kit.UpdateRunner:
    """The consumer's work: run the handlers once per update."""
    gateway = c.telegram_gateway
    return kit.UpdateRunner(c.telegram_uow, gateway.process, prepare=gateway.start)


def _tool_approvals(c: Container) -> kit.ToolApprovals:
    """Tool approvals from Telegram (docs/hooks.md, "Tool approvals")."""
    s = c.settings
    channel: kit.ApprovalChannel = kit.NoApprovalChannel()
    if s.telegram_bot_token and s.telegram_chat_id:
        channel = kit.TelegramApprovalChannel(lambda: c.telegram_gateway, s.telegram_chat_id)
    return kit.ToolApprovals(kit.approval_units(c.db), channel)  # type: ignore[arg-type]


class TelegramWiring(CoreWiring):
    stream_pacing: StreamPacing | None  # the topic streams' pace (tests pass a fast one)

    telegram_uow: kit.UnitOfWorkFactory = provide(lambda c: kit.telegram_units(c.db))
    telegram_gateway: TelegramGateway = provide(_telegram_gateway)
    folder_walks: kit.FolderWalks = provide(_folder_walks)
    # /continue: the terminal sessions a machine's agent can resume, asked on its queue
    resume_listings: kit.ResumeListings = provide(lambda c: kit.ResumeListings(
        c.telegram_uow, c.task_queues.send_to_machine,
        kit.SendToChat(lambda *a, **k: c.telegram_gateway.send(*a, **k))))
    telegram_access: kit.AccessGuard = provide(
        lambda c: kit.AccessGuard(c.telegram_uow, c.settings.telegram_allowed_users))
    # the webhook's (and local polling's) work: record the update once, queue it
    telegram_intake: kit.TelegramIntake = provide(
        lambda c: kit.TelegramIntake(c.telegram_uow, kit.SqsUpdateQueue(c.queues)))
    telegram_updates: kit.UpdateRunner = provide(_telegram_updates)
    # looked up on use: the task and session services publish through this directory
    telegram_topics: kit.TopicDirectory = provide(
        lambda c: kit.TopicDirectory(c.telegram_uow, lambda ref: c.tasks.get(ref),
                                     lambda ref: c.agent_sessions.get(ref)))
    topic_streams: kit.TopicStreams = provide(lambda c: kit.TopicStreams(
        c.telegram_uow, c.telegram_gateway, kit.SqsStreamTrigger(c.queues), c.stream_pacing))
    # files sent to a session's or a task's topic, fetched from Telegram when its machine asks
    attached_files: kit.AttachedFiles = provide(lambda c: kit.AttachedFiles(
        {kit.SESSION: c.agent_sessions.attachment, kit.TASK: c.task_runs.attachment},
        c.telegram_gateway.download))
    reminders: kit.Reminders = provide(lambda c: kit.Reminders(c.telegram_uow, c.telegram_gateway))
    tool_approvals: kit.ToolApprovals = provide(_tool_approvals)
