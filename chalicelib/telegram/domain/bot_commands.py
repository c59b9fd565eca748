"""The bot's command list, its help text, and parsing of each command's arguments.

Parsers take the words after the command (PTB's `context.args`) and raise InvalidInput with
the command's usage when the words do not fit, so the bot answers with the usage line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chalicelib.kernel.errors import InvalidInput
from chalicelib.tasks.domain.task_budget import CAP_KINDS, Cap, parse_usd


@dataclass(frozen=True)
class CommandSpec:
    name: str
    usage: str
    summary: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("task", "/task [--plan] <project> <description>",
                "Queue a coding task; progress streams to a topic (--plan: Claude plans first, you approve)"),
    CommandSpec("session", "/session [--plan] <machine> <prompt>",
                "Start an interactive engine session in a topic (--plan: Claude plans first, you approve)"),
    CommandSpec("close", "/close", "End the interactive session of this topic"),
    CommandSpec("export", "/export [md|json]", "Send this session's conversation as a Markdown or JSON file"),
    CommandSpec("continue", "/continue [machine] [folder]",
                "Pick up a terminal session (Claude, Codex, Gemini) of a folder in a new topic"),
    CommandSpec("cancel", "/cancel <task>", "Cancel a task (in a task's topic the id may be left out)"),
    CommandSpec("steer", "/steer <message>",
                "In a running task's topic: steer its running turn with a message (else its next turn)"),
    CommandSpec("queue", "/queue <message>", "In a running task's topic: a message for its next turn"),
    CommandSpec("status", "/status", "Queue and machine health"),
    CommandSpec("machines", "/machines [invite <id>]", "List the agent machines, or invite a new one"),
    CommandSpec("repos", "/repos", "List the repositories the machines have"),
    CommandSpec("ssh", "/ssh <target> [--timeout S] <command>",
                "Run a command on an SSH target; output streams here"),
    CommandSpec("exec", "/exec @<machine> [--timeout S] <command>",
                "Run a command on a registered machine over SSH"),
    CommandSpec("engines", "/engines [machine] [order]", "Show or set a machine's engine order"),
    CommandSpec("recall", "/recall <query>", "Search memory"),
    CommandSpec("learn", "/learn [project:] <rule>", "Store a project rule (confidence 0.95)"),
    CommandSpec("rules", "/rules [project]",
                "A project's rules, each with ⬆ Promote to <namespace> when the project is in namespaces"),
    CommandSpec("memory", "/memory stats|check [project] | /memory snapshot <name> [project]",
                "Memory per phase, integrity counts, or a snapshot of a project's memory"),
    CommandSpec("feedback", "/feedback <task> good|bad [note]",
                "Rate a task's outcome to reinforce lessons; a note is learned from"),
    CommandSpec("remind", "/remind <when> <message>", "Set a reminder (30m, 2h, 17:30, tomorrow 9am)"),
    CommandSpec("brain", "/brain [on|off|proposals|config interval|budget|max <value>]",
                "The brain loop: status, kill switch, settings, proposals"),
    CommandSpec("spawn", "/spawn <profile> <task>",
                "Start a specialist subagent (code-reviewer, researcher, devops, yours) in a topic"),
    CommandSpec("agents", "/agents [cron [rm <id>]]", "Active subagent runs, or their cron jobs"),
    CommandSpec("update", "/update <machine>", "Have a machine's agent update itself and restart"),
    CommandSpec("restart", "/restart <machine>", "Have a machine's agent restart once its tasks end"),
    CommandSpec("deploy", "/deploy <project> | /deploy set <project> [@machine] <command>",
                "Run a project's deploy command on its machine as a task, after a confirmation"),
    CommandSpec("logs", "/logs [task id | function]", "The last log lines (of a task, or a function)"),
    CommandSpec("budget", "/budget [task|daily <usd> [user id]]",
                "Today's spend and your cost caps, or set a cap (0: none)"),
    CommandSpec("start", "/start", "Introduce the bot"),
    CommandSpec("help", "/help", "List the commands"),
)

ENGINES = ("claude", "codex", "gemini")
# The session picker's rows: the wrapper a user knows -> the engine it runs.
WRAPPERS = {"itachi": "claude", "itachic": "codex", "itachig": "gemini"}
# The picker's columns: --ds starts fresh, --cds continues the engine's latest session.
MODES = {"ds": "--ds", "cds": "--cds"}
PICKER_PREFIX = "sp"
_SHORT_ID = re.compile(r"^[0-9a-fA-F-]{4,36}$")
_NAME = re.compile(r"^[\w.@/-]{1,100}$")


def spec(name: str) -> CommandSpec:
    for command in COMMANDS:
        if command.name == name:
            return command
    raise KeyError(f"no command /{name} in the table")


def command_menu() -> list[tuple[str, str]]:
    """(name, summary) for Telegram's command menu (setMyCommands allows 256 characters)."""
    return [(s.name, s.summary[:256]) for s in COMMANDS]


def help_text() -> str:
    lines = ["Itachi: memory and tasks for your coding agents.", ""]
    lines += [f"{s.usage}: {s.summary}" for s in COMMANDS]
    lines += ["", "Text in a session's topic goes to that session. Other text gets a conversational "
              "answer from memory when an LLM is configured."]
    return "\n".join(lines)


def _usage(name: str) -> InvalidInput:
    return InvalidInput(f"Usage: {spec(name).usage}")


PLAN_FLAG = "--plan"


@dataclass(frozen=True)
class TaskRequest:
    project: str
    description: str
    plan: bool = False  # Claude starts in plan mode; its plan waits for Approve plan / Revise


def parse_task(args: Sequence[str]) -> TaskRequest:
    return TaskRequest(*_name_text_plan(args, "task"))


@dataclass(frozen=True)
class SessionRequest:
    machine: str
    prompt: str
    plan: bool = False  # Claude in plan mode, no picker; its plan waits for Approve plan / Revise


def parse_session(args: Sequence[str]) -> SessionRequest:
    return SessionRequest(*_name_text_plan(args, "session"))


def _name_text_plan(args: Sequence[str], command: str) -> tuple[str, str, bool]:
    """`[--plan] <name> <text...>`: the name (a project, a machine), the text, and whether --plan led."""
    plan = bool(args) and args[0] == PLAN_FLAG
    args = args[1:] if plan else args
    if len(args) < 2 or not _NAME.match(args[0]) or args[0].startswith("-"):
        raise _usage(command)
    return args[0], " ".join(args[1:]), plan


def parse_export(args: Sequence[str]) -> str:
    """The export's format: `md` (the default) or `json`."""
    if len(args) > 1 or (args and args[0].lower() not in ("md", "json")):
        raise _usage("export")
    return args[0].lower() if args else "md"


def parse_task_ref(args: Sequence[str], command: str, *, optional: bool = False) -> str | None:
    """A task id or its first characters (at least 4 hex digits)."""
    if not args:
        if optional:
            return None
        raise _usage(command)
    if not _SHORT_ID.match(args[0]):
        raise InvalidInput(f"'{args[0]}' is not a task id. Usage: {spec(command).usage}")
    return args[0].lower()


@dataclass(frozen=True)
class Feedback:
    task_ref: str
    good: bool
    note: str = ""  # what the user says about it: read for rules and lessons


def parse_feedback(args: Sequence[str]) -> Feedback:
    """`/feedback <task> good|bad [note...]`."""
    if len(args) < 2 or args[1].lower() not in {"good", "bad"}:
        raise _usage("feedback")
    ref = parse_task_ref(args[:1], "feedback")
    assert ref is not None
    return Feedback(ref, args[1].lower() == "good", " ".join(args[2:]).strip()[:2000])


@dataclass(frozen=True)
class EnginesRequest:
    machine: str | None
    order: tuple[str, ...] | None


def parse_engines(args: Sequence[str]) -> EnginesRequest:
    """`/engines`, `/engines <machine>`, or `/engines <machine> codex,claude` (or space-separated)."""
    if not args:
        return EnginesRequest(None, None)
    if not _NAME.match(args[0]):
        raise _usage("engines")
    words = [w.strip().lower() for part in args[1:] for w in part.split(",") if w.strip()]
    if not words:
        return EnginesRequest(args[0], None)
    unknown = [w for w in words if w not in ENGINES]
    if unknown or len(set(words)) != len(words):
        raise InvalidInput(f"Engines are {', '.join(ENGINES)}, each at most once. "
                           f"Usage: {spec('engines').usage}")
    return EnginesRequest(args[0], tuple(words))


@dataclass(frozen=True)
class LearnRequest:
    project: str | None
    rule: str


def parse_learn(args: Sequence[str]) -> LearnRequest:
    """`/learn <rule>` or `/learn myproject: <rule>`."""
    if not args:
        raise _usage("learn")
    first = args[0]
    if first.endswith(":") and len(first) > 1 and _NAME.match(first[:-1]) and len(args) > 1:
        return LearnRequest(first[:-1], " ".join(args[1:]))
    return LearnRequest(None, " ".join(args))


def parse_rules(args: Sequence[str]) -> str | None:
    """`/rules` (the topic's project) or `/rules <project>`."""
    if len(args) > 1 or (args and not _NAME.match(args[0])):
        raise _usage("rules")
    return args[0] if args else None


def parse_query(args: Sequence[str], command: str) -> str:
    if not args:
        raise _usage(command)
    return " ".join(args)


@dataclass(frozen=True)
class PickerChoice:
    request_id: str
    wrapper: str
    mode: str

    @property
    def engine(self) -> str:
        return WRAPPERS[self.wrapper]

    @property
    def resume(self) -> bool:
        return self.mode == "cds"

    @property
    def label(self) -> str:
        return f"{self.wrapper} {MODES[self.mode]}"


def picker_data(request_id: str, wrapper: str, mode: str) -> str:
    """Callback data for one picker button (Telegram allows 64 bytes)."""
    data = f"{PICKER_PREFIX}:{request_id}:{wrapper}:{mode}"
    if wrapper not in WRAPPERS or mode not in MODES or len(data.encode()) > 64:
        raise ValueError("invalid picker choice")
    return data


def parse_picker_data(data: str) -> PickerChoice | None:
    parts = data.split(":")
    if len(parts) != 4 or parts[0] != PICKER_PREFIX:
        return None
    _, request_id, wrapper, mode = parts
    if wrapper not in WRAPPERS or mode not in MODES or not request_id:
        return None
    return PickerChoice(request_id, wrapper, mode)


def short_id(identifier: str) -> str:
    """The first 8 characters of an id, as shown to users."""
    return identifier.replace("-", "")[:8]


@dataclass(frozen=True)
class RemoteCommand:
    where: str  # an SSH target name (/ssh) or a machine id (/exec @machine)
    command: str
    timeout_s: int | None = None


_REMOTE = re.compile(r"^/(?P<verb>ssh|exec)(?:@\w+)?\s+(?P<where>\S+)"
                     r"(?:\s+--timeout[= ](?P<timeout>\d{1,5}))?\s+(?P<command>.+)$", re.DOTALL)


def parse_remote(text: str, command: str) -> RemoteCommand:
    """`/ssh <target> [--timeout S] <command>` or `/exec @<machine> ...`, the command kept verbatim."""
    match = _REMOTE.match(text.strip())
    if match is None or match.group("verb") != command:
        raise _usage(command)
    where = match.group("where")
    if command == "exec":
        if not where.startswith("@") or not _NAME.match(where[1:]):
            raise InvalidInput(f"Name the machine with @. Usage: {spec('exec').usage}")
        where = where[1:]
    elif not _NAME.match(where):
        raise _usage(command)
    timeout = match.group("timeout")
    return RemoteCommand(where, match.group("command").strip(), int(timeout) if timeout else None)


@dataclass(frozen=True)
class MemoryRequest:
    action: str  # stats | check | snapshot
    project: str | None
    name: str | None = None


def parse_memory(args: Sequence[str]) -> MemoryRequest:
    """`/memory stats [project]`, `/memory check [project]`, `/memory snapshot <name> [project]`."""
    if not args or args[0] not in ("stats", "check", "snapshot"):
        raise _usage("memory")
    if args[0] == "snapshot":
        if len(args) not in (2, 3) or not _SNAPSHOT.match(args[1]):
            raise InvalidInput("Usage: /memory snapshot <name> [project] (name: letters, digits, . _ -)")
        return MemoryRequest("snapshot", args[2] if len(args) == 3 else None, args[1])
    if len(args) > 2:
        raise _usage("memory")
    return MemoryRequest(args[0], args[1] if len(args) == 2 else None)


_SNAPSHOT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class DeployRequest:
    project: str
    command: str | None = None  # set: the command to store (verbatim)
    machine: str | None = None  # set: the machine to run it on (else one that has the project)


_DEPLOY = re.compile(r"^/deploy(?:@\w+)?\s+(?:(?P<set>set)\s+(?P<sp>\S+)(?:\s+@(?P<machine>\S+))?"
                     r"\s+(?P<command>.+)|(?P<project>\S+))\s*$", re.DOTALL)


def parse_deploy(text: str) -> DeployRequest:
    """`/deploy <project>` or `/deploy set <project> [@machine] <command>` (the command verbatim)."""
    match = _DEPLOY.match(text.strip())
    if match is None:
        raise _usage("deploy")
    project = match.group("sp") or match.group("project")
    machine = match.group("machine")
    if not _NAME.match(project) or project == "set" or (machine is not None and not _NAME.match(machine)):
        raise _usage("deploy")
    if match.group("set"):
        return DeployRequest(project, match.group("command").strip(), machine)
    return DeployRequest(project)


@dataclass(frozen=True)
class BudgetRequest:
    cap: Cap | None = None  # None: show the caps and today's spend
    usd: float = 0.0
    user_id: int | None = None  # whose cap (an admin's choice); None: the sender's own


def parse_budget(args: Sequence[str]) -> BudgetRequest:
    """`/budget`, `/budget task 2.50`, `/budget daily 20`, `/budget daily 20 <user id>`."""
    if not args:
        return BudgetRequest()
    cap = args[0].lower()
    if len(args) not in (2, 3) or cap not in CAP_KINDS:
        raise _usage("budget")
    try:
        usd = parse_usd(args[1])
    except ValueError as exc:
        raise InvalidInput(f"{exc}. Usage: {spec('budget').usage}") from None
    if len(args) == 3 and not args[2].isdigit():
        raise InvalidInput(f"'{args[2]}' is not a Telegram user id. Usage: {spec('budget').usage}")
    return BudgetRequest("task" if cap == "task" else "daily", usd, int(args[2]) if len(args) == 3 else None)
