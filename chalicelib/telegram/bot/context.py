"""What every handler needs: its services, where a message was written, and how to answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from telegram import Update
from telegram.ext import ContextTypes

from chalicelib.kernel.errors import Unavailable
from chalicelib.telegram.domain.bot_commands import COMMANDS, spec
from chalicelib.telegram.domain.telegram_text import split_message
from chalicelib.telegram.domain.topic_story import topic_link as topic_link  # the handlers import it here
from chalicelib.telegram.services.ports import Keyboard, Transcriber

if TYPE_CHECKING:
    from chalicelib.agents.services.cron import AgentCron
    from chalicelib.agents.services.runs import SubagentRuns
    from chalicelib.approvals.services.tool_approvals import ToolApprovals
    from chalicelib.assistant.services.project_deploys import ProjectDeploys
    from chalicelib.assistant.services.task_offers import TaskOffers
    from chalicelib.assistant.services.user_model import UserModel
    from chalicelib.auth.services.machine_onboarding import MachineOnboarding
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.learning.services.rule_clashes import RuleClashes
    from chalicelib.learning.services.task_feedback import TaskFeedback
    from chalicelib.memory.services.memory_review import MemoryReview
    from chalicelib.ops.services.log_tail import LogTail
    from chalicelib.ops.services.machine_controls import MachineControls
    from chalicelib.ssh.services.ssh_runs import SshRuns
    from chalicelib.tasks.services.agent_sessions import AgentSessionService
    from chalicelib.tasks.services.machines import MachineRegistry
    from chalicelib.tasks.services.task_budgets import TaskBudgets
    from chalicelib.tasks.services.tasks import TaskService
    from chalicelib.telegram.adapters.telegram_gateway import LoopGateway
    from chalicelib.telegram.services.folder_walks import FolderWalks
    from chalicelib.telegram.services.memory_admin import TelegramMemoryAdmin
    from chalicelib.telegram.services.reminders import Reminders
    from chalicelib.telegram.services.resume_listings import ResumeListings
    from chalicelib.telegram.services.rule_offers import RuleOffers
    from chalicelib.telegram.services.session_requests import SessionRequests
    from chalicelib.telegram.services.telegram_context import TelegramContext
    from chalicelib.telegram.services.telegram_conversation import Conversation
    from chalicelib.telegram.services.telegram_intake import AccessGuard
    from chalicelib.telegram.services.topic_directory import TopicDirectory
    from chalicelib.telegram.services.topic_streams import TopicStreams

T = TypeVar("T")
Context = ContextTypes.DEFAULT_TYPE
Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]
NamedCallback = Callable[[Update, Context, str], Coroutine[Any, Any, None]]
SERVICES_KEY = "itachi.services"
_COMMAND_HANDLERS: dict[str, Callback] = {}


def command(name: str) -> Callable[[Callback], Callback]:
    """Bind a handler to its row of the command table (`domain/bot_commands.py`)."""
    spec(name)  # a name outside the table fails at import

    def bind(callback: Callback) -> Callback:
        _COMMAND_HANDLERS[name] = callback
        return callback

    return bind


def commands(*names: str) -> Callable[[NamedCallback], NamedCallback]:
    """Bind one handler to several rows of the command table; it is told the command it serves."""

    def bind(handler: NamedCallback) -> NamedCallback:
        for name in names:
            command(name)(_serving(handler, name))
        return handler

    return bind


def _serving(handler: NamedCallback, name: str) -> Callback:
    async def serve(update: Update, context: Context) -> None:
        await handler(update, context, name)

    return serve


def command_handlers() -> list[tuple[str, Callback]]:
    """Every command of the table with its handler, in the table's order."""
    missing = [c.name for c in COMMANDS if c.name not in _COMMAND_HANDLERS]
    if missing:
        raise LookupError(f"commands without a handler: {', '.join(missing)}")
    return [(c.name, _COMMAND_HANDLERS[c.name]) for c in COMMANDS]


@dataclass(frozen=True)
class BotServices:
    """The services the handlers use, built by the composition root (`chalicelib/bootstrap.py`)."""

    telegram: LoopGateway  # every Bot API call a handler makes
    access: AccessGuard
    forum_chat_id: int | None  # TELEGRAM_CHAT_ID: the supergroup that gets a topic per task
    topics: TopicDirectory
    streams: TopicStreams
    reminders: Reminders
    session_requests: SessionRequests
    knowledge: TelegramContext  # /recall and /learn
    conversation: Conversation
    feedback: TaskFeedback
    tasks: TaskService
    sessions: AgentSessionService
    machines: MachineRegistry
    ssh_runs: SshRuns  # /ssh and /exec
    folder_walks: FolderWalks  # the /session picker's folder walk
    memory_admin: TelegramMemoryAdmin  # /memory
    onboarding: MachineOnboarding | None = None  # /machines invite
    public_url: str = ""  # ITACHI_PUBLIC_URL, for the join command an invite shows
    brain: ProposalDecisions | None = None  # /brain and the proposals' buttons
    logs: LogTail | None = None  # /logs
    machine_controls: MachineControls | None = None  # /engines <machine> <order>, /update, /restart
    graph_admin: GraphAdmin | None = None  # the graph memory's contradiction buttons
    rule_clashes: RuleClashes | None = None  # a flagged rule's Keep new / Keep old / Keep both
    approvals: ToolApprovals | None = None  # tool approvals' Approve / Deny / Always buttons
    graph_recall: Callable[[str, str], str] | None = None  # /recall: the graph's deep context
    assistant: UserModel | None = None  # learns facts and personality traits from free text
    offers: TaskOffers | None = None  # natural-language requests offered as tasks (Create / Cancel)
    deploys: ProjectDeploys | None = None  # /deploy: a project's deploy command, offered as a task
    repo_registry: Callable[[], list[dict[str, Any]]] | None = None  # GitHub sync's repos, for /repos
    agent_runs: SubagentRuns | None = None  # /spawn and /agents
    agent_cron: AgentCron | None = None  # /agents cron
    review: MemoryReview | None = None  # the review digest's Keep / Edit / Drop buttons
    resume_listings: ResumeListings | None = None  # /continue: terminal sessions to pick up
    rule_offers: RuleOffers | None = None  # /rules and its Promote to <namespace> buttons
    task_text: str = "steer"  # TELEGRAM_TASK_TEXT: what plain text in a running task's topic does
    transcriber: Transcriber | None = None  # voice notes in a session's topic
    budgets: TaskBudgets | None = None  # /budget, and the caps a /task is created under


def services(context: Context) -> BotServices:
    return context.application.bot_data[SERVICES_KEY]  # type: ignore[no-any-return]


def available(service: T | None, missing: str) -> T:
    """The optional service a command needs; Unavailable, answered with `missing`, when it is not set
    up on this server."""
    if service is None:
        raise Unavailable(missing)
    return service


def who(update: Update) -> str:
    """The person a decision is recorded as: `telegram:<username or user id>`."""
    user = update.effective_user
    return f"telegram:{user.username or user.id}" if user else "telegram"


def topic_of(update: Update) -> int:
    """The forum topic the message was written in; 0 outside topics (General included)."""
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return 0
    return message.message_thread_id or 0


async def blocking(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a synchronous service call off the event loop, so other updates and sends go on."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def reply(update: Update, context: Context, text: str, keyboard: Keyboard | None = None) -> None:
    """Answer in the chat and topic of the update, split into as many messages as needed."""
    chat = update.effective_chat
    if update.effective_message is None or chat is None:
        return
    telegram = services(context).telegram
    parts = split_message(text) or ["(empty)"]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        await telegram.send(chat.id, part, topic_id=topic_of(update), keyboard=keyboard if last else None)


async def project_here(update: Update, context: Context) -> str | None:
    """The project of the task or session whose topic the message was written in."""
    chat = update.effective_chat
    topics = services(context).topics
    topic = await blocking(topics.by_thread, chat.id if chat else 0, topic_of(update))
    return await blocking(topics.project_of, topic) if topic is not None else None
