"""A natural-language request for work ("can you fix the flaky login test in billing?") read as
the task the bot would offer to create: project, prompt, and the machine that would run it.

The deterministic reader needs an action verb and a project it knows by name (or the topic's);
the assistant asks the model when one is configured and keeps this as the fallback. Nothing is
created from here: the offer waits for the Create button.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

OFFER_PREFIX = "offer"
MAX_PROMPT_CHARS = 2000
_VERBS = (
    "fix|add|implement|write|update|refactor|remove|delete|investigate|debug|upgrade|migrate|rename|"
    "create|build|bump|clean up|look into|speed up|optimi[sz]e|document|test"
)
_REQUEST = re.compile(
    r"^\s*(?:(?:hey|hi|ok|okay)\b[\w ]{0,20}[,!]?\s*)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"|please\s+|i need you to\s+|go\s+)?(?P<verb>" + _VERBS + r")\b(?P<rest>.*)$",
    re.I | re.S,
)
INTENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "is_task": {"type": "boolean"},
        "project": {"type": "string"},
        "prompt": {"type": "string"},
    },
    "required": ["is_task", "project", "prompt"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class TaskIntent:
    project: str
    prompt: str


def looks_like_request(message: str) -> bool:
    return bool(_REQUEST.match(message)) and not message.lstrip().startswith("/")


def read_intent(message: str, known_projects: Sequence[str], project_here: str | None) -> TaskIntent | None:
    match = _REQUEST.match(message)
    if match is None or message.lstrip().startswith("/"):
        return None
    project = mentioned_project(message, known_projects) or project_here
    if not project:
        return None
    prompt = (match.group("verb")[0].upper() + match.group("verb")[1:] + match.group("rest")).strip()
    return TaskIntent(project, _tidy(prompt))


def intent_from_answer(
    answer: dict[str, Any] | None, known_projects: Sequence[str], project_here: str | None
) -> TaskIntent | None:
    if not answer or answer.get("is_task") is not True:
        return None
    named = str(answer.get("project") or "")
    project = mentioned_project(named, known_projects) or project_here
    prompt = _tidy(str(answer.get("prompt") or ""))
    return TaskIntent(project, prompt) if project and prompt else None


def mentioned_project(text: str, known_projects: Sequence[str]) -> str | None:
    """The known project the text names (by its full name or its last path segment), longest first."""
    lowered = f" {text.lower()} "
    for project in sorted(set(known_projects), key=len, reverse=True):
        for name in {project.lower(), project.lower().rstrip("/").split("/")[-1].removesuffix(".git")}:
            if name and re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-])", lowered):
                return project
    return None


def offer_data(offer_id: str, create: bool) -> str:
    return f"{OFFER_PREFIX}:{offer_id}:{'create' if create else 'cancel'}"


def parse_offer_data(data: str) -> tuple[str, bool] | None:
    parts = data.split(":")
    if len(parts) != 3 or parts[0] != OFFER_PREFIX or parts[2] not in ("create", "cancel"):
        return None
    return parts[1], parts[2] == "create"


def offer_text(project: str, machine: str | None, prompt: str, branch: str | None) -> str:
    where = machine or "the first free machine (none has this project yet)"
    repo = f"\nBranch: from {branch}" if branch else ""
    return (
        f"I can create this task:\n\nProject: {project}{repo}\nMachine: {where}\nPrompt: {prompt}\n\n"
        "Create it?"
    )


def _tidy(prompt: str) -> str:
    return " ".join(prompt.split()).rstrip(" ?!.")[:MAX_PROMPT_CHARS]
