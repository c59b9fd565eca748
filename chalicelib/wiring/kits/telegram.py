"""What the Telegram front-end and tool approvals are built from (the bot itself is imported apart)."""

from chalicelib.approvals.adapters.approval_repository import approval_units
from chalicelib.approvals.adapters.telegram_channel import NoApprovalChannel, TelegramApprovalChannel
from chalicelib.approvals.services.tool_approvals import ApprovalChannel, ToolApprovals
from chalicelib.telegram.adapters.postgres_unit_of_work import telegram_units
from chalicelib.telegram.adapters.sqs_telegram_queues import SqsStreamTrigger, SqsUpdateQueue
from chalicelib.telegram.services.attached_files import SESSION, TASK, AttachedFiles
from chalicelib.telegram.services.folder_walks import FolderWalks
from chalicelib.telegram.services.ports import UnitOfWorkFactory
from chalicelib.telegram.services.reminders import Reminders
from chalicelib.telegram.services.resume_listings import ResumeListings, SendToChat
from chalicelib.telegram.services.telegram_intake import AccessGuard, TelegramIntake, UpdateRunner
from chalicelib.telegram.services.topic_directory import TopicDirectory
from chalicelib.telegram.services.topic_streams import TopicStreams
