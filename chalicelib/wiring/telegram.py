"""The Telegram front-end (docs/telegram.md): intake, the gateway, topic streams, reminders and
tool approvals."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.approvals.services.tool_approvals import ToolApprovals
    from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
    from chalicelib.telegram.services.attached_files import AttachedFiles
    from chalicelib.telegram.services.folder_walks import FolderWalks
    from chalicelib.telegram.services.ports import UnitOfWorkFactory as TelegramUnitOfWorkFactory
    from chalicelib.telegram.services.reminders import Reminders
    from chalicelib.telegram.services.resume_listings import ResumeListings
    from chalicelib.telegram.services.telegram_intake import AccessGuard, TelegramIntake, UpdateRunner
    from chalicelib.telegram.services.topic_directory import TopicDirectory
    from chalicelib.telegram.services.topic_streams import StreamPacing, TopicStreams


class TelegramWiring(CoreWiring):
    stream_pacing: StreamPacing | None  # the topic streams' pace (tests pass a fast one)

    # Telegram front-end (docs/telegram.md): update intake, the bot and its handlers, topic
    # streams, reminders. python-telegram-bot is imported only once the bot itself is used.
    @property
    def telegram_enabled(self) -> bool:
        return bool(self.settings.telegram_bot_token)

    @cached_property
    def telegram_uow(self) -> TelegramUnitOfWorkFactory:
        from chalicelib.telegram.adapters.postgres_unit_of_work import telegram_units

        return telegram_units(self.db)

    @cached_property
    def telegram_gateway(self) -> TelegramGateway:
        """Every Bot API call, on the bot's own loop; the handlers are built when the bot starts."""
        from chalicelib.telegram.adapters.bot_runtime import BotRuntime
        from chalicelib.telegram.adapters.telegram_gateway import TelegramGateway
        from chalicelib.telegram.bot.handler_table import build_application

        s = self.settings
        return TelegramGateway(BotRuntime(
            lambda: build_application(s.telegram_bot_token, s.telegram_api_url, self.bot_services)))

    @cached_property
    def folder_walks(self) -> FolderWalks:
        """The session picker's folder walk: listings asked of the machine's agent on its queue."""
        from chalicelib.telegram.services.folder_walks import FolderWalks

        def machine_folders(machine: str) -> bool:
            return any(m["id"] == machine and m["status"] == "online" and m["repos"]
                       for m in self.machine_registry.list_machines())

        return FolderWalks(self.telegram_uow, self.topic_streams, self.task_queues.send_to_machine,
                           machine_folders)

    @cached_property
    def resume_listings(self) -> ResumeListings:
        """/continue: the terminal sessions a machine's agent can resume, asked on its queue."""
        from chalicelib.telegram.services.resume_listings import ResumeListings, SendToChat

        return ResumeListings(self.telegram_uow, self.task_queues.send_to_machine,
                              SendToChat(lambda *a, **k: self.telegram_gateway.send(*a, **k)))

    @cached_property
    def telegram_access(self) -> AccessGuard:
        from chalicelib.telegram.services.telegram_intake import AccessGuard

        return AccessGuard(self.telegram_uow, self.settings.telegram_allowed_users)

    @cached_property
    def telegram_intake(self) -> TelegramIntake:
        """The webhook's (and local polling's) work: record the update once, queue it."""
        from chalicelib.telegram.adapters.sqs_telegram_queues import SqsUpdateQueue
        from chalicelib.telegram.services.telegram_intake import TelegramIntake

        return TelegramIntake(self.telegram_uow, SqsUpdateQueue(self.queues))

    @cached_property
    def telegram_updates(self) -> UpdateRunner:
        """The consumer's work: run the handlers once per update."""
        from chalicelib.telegram.services.telegram_intake import UpdateRunner

        gateway = self.telegram_gateway
        return UpdateRunner(self.telegram_uow, gateway.process, prepare=gateway.start)

    @cached_property
    def telegram_topics(self) -> TopicDirectory:
        from chalicelib.telegram.services.topic_directory import TopicDirectory

        # Looked up on use: the task and session services publish through this directory.
        return TopicDirectory(self.telegram_uow, lambda ref: self.tasks.get(ref),
                              lambda ref: self.agent_sessions.get(ref))

    @cached_property
    def topic_streams(self) -> TopicStreams:
        from chalicelib.telegram.adapters.sqs_telegram_queues import SqsStreamTrigger
        from chalicelib.telegram.services.topic_streams import TopicStreams

        return TopicStreams(self.telegram_uow, self.telegram_gateway, SqsStreamTrigger(self.queues),
                            self.stream_pacing)

    @cached_property
    def attached_files(self) -> AttachedFiles:
        """Files sent to a session's or a task's topic, fetched from Telegram when its machine asks."""
        from chalicelib.telegram.services.attached_files import SESSION, TASK, AttachedFiles

        return AttachedFiles({SESSION: self.agent_sessions.attachment, TASK: self.task_runs.attachment},
                             self.telegram_gateway.download)

    @cached_property
    def reminders(self) -> Reminders:
        from chalicelib.telegram.services.reminders import Reminders

        return Reminders(self.telegram_uow, self.telegram_gateway)

    # Tool approvals from Telegram (docs/hooks.md, "Tool approvals").
    @cached_property
    def tool_approvals(self) -> ToolApprovals:
        from chalicelib.approvals.adapters.approval_repository import approval_units
        from chalicelib.approvals.adapters.telegram_channel import NoApprovalChannel, TelegramApprovalChannel
        from chalicelib.approvals.services.tool_approvals import ApprovalChannel, ToolApprovals

        s = self.settings
        channel: ApprovalChannel = (TelegramApprovalChannel(lambda: self.telegram_gateway, s.telegram_chat_id)
                                    if s.telegram_bot_token and s.telegram_chat_id else NoApprovalChannel())
        return ToolApprovals(approval_units(self.db), channel)  # type: ignore[arg-type]
