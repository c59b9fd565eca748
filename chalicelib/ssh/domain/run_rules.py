"""The rules of a one-off command run: which commands need a confirmation, and its states.

A target's allow-list holds command prefixes, compared word by word: `git status` allows
`git status -s` but not `git statusx`. A command with shell syntax (`;`, `|`, `&`, `$`,
redirections, backquotes, newlines...) is never on the list, since the words after it could
do anything: it always asks for the confirmation button.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from chalicelib.kernel.errors import Conflict, InvalidInput

AWAITING = "awaiting_confirmation"
QUEUED = "queued"
RUNNING = "running"
SUCCEEDED = "succeeded"
FAILED = "failed"
TIMED_OUT = "timed_out"
REFUSED = "refused"  # the host key did not match its pin (or none is pinned)
CANCELLED = "cancelled"
ENDINGS = frozenset({SUCCEEDED, FAILED, TIMED_OUT, REFUSED})
TERMINAL = ENDINGS | {CANCELLED}
MAX_COMMAND_CHARS = 2000
_SHELL_SYNTAX = re.compile(r"[;&|`$<>\n\r(){}\\*?\[\]~!#]")


def _words(command: str) -> list[str] | None:
    try:
        return shlex.split(command)
    except ValueError:
        return None


def on_allow_list(command: str, allowed: Iterable[str]) -> bool:
    """Whether the command may run without a confirmation."""
    if _SHELL_SYNTAX.search(command):
        return False
    words = _words(command)
    if not words:
        return False
    for entry in allowed:
        prefix = _words(entry)
        if prefix and words[: len(prefix)] == prefix:
            return True
    return False


def check_command(command: str) -> str:
    text = command.strip()
    if not text:
        raise InvalidInput("the command is empty", field="command")
    if len(text) > MAX_COMMAND_CHARS:
        raise InvalidInput(f"the command is longer than {MAX_COMMAND_CHARS} characters", field="command")
    return text


def check_move(current: str, new: str) -> None:
    """Refuse a transition the run's state does not allow (a stale or duplicate report)."""
    allowed = {AWAITING: {QUEUED, CANCELLED}, QUEUED: {RUNNING, CANCELLED, REFUSED, FAILED},
               RUNNING: set(ENDINGS)}
    if new not in allowed.get(current, set()):
        raise Conflict(f"the run is {current.replace('_', ' ')}; it cannot become {new.replace('_', ' ')}")
