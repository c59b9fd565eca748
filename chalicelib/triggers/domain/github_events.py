"""GitHub webhook deliveries: their signature, and which of them ask for a task.

GitHub signs the raw body with the webhook's secret: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256>`.
A delivery asks for a task when an issue gets the configured label (`issues`, action `labeled`)
or a new issue or pull-request comment mentions the configured name (`issue_comment`, `created`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from chalicelib.contracts.project_identity import normalise_remote_url

SIGNATURE_PREFIX = "sha256="
MAX_PROMPT_CHARS = 20_000


def signature_valid(secret: str, body: bytes, header: str) -> bool:
    """Whether `header` is the body's HMAC-SHA256 under `secret` (constant time; no secret, no match)."""
    if not secret or not header.startswith(SIGNATURE_PREFIX):
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(header[len(SIGNATURE_PREFIX):].strip().lower().encode(), expected.encode())


@dataclass(frozen=True)
class Issue:
    repository: str  # owner/name
    clone_url: str
    number: int
    title: str
    body: str
    url: str
    is_pull_request: bool = False


@dataclass(frozen=True)
class Delivery:
    """What the trigger reads of a delivery (the route fills it from GitHub's JSON)."""

    event: str  # X-GitHub-Event
    action: str
    issue: Issue | None = None
    label: str = ""  # the label just added (issues/labeled)
    comment: str = ""  # the new comment's text (issue_comment/created)
    comment_url: str = ""
    sender_is_bot: bool = False


@dataclass(frozen=True)
class Trigger:
    """A task a delivery asks for: its project, its prompt, and the issue to link it from."""

    project: str
    prompt: str
    issue: Issue


def mentions(text: str, name: str) -> bool:
    """Whether `text` mentions `name` (`@itachi`) as a word of its own, in any case."""
    return re.search(rf"(?<![\w@]){re.escape(name)}(?![\w-])", text, re.IGNORECASE) is not None


def trigger_of(delivery: Delivery, label: str, mention: str) -> Trigger | None:
    """The task `delivery` asks for, or None when it asks for none (other events, labels, comments)."""
    issue = delivery.issue
    if issue is None or delivery.sender_is_bot:
        return None
    labelled = delivery.event == "issues" and delivery.action == "labeled" \
        and delivery.label.casefold() == label.casefold()
    mentioned = delivery.event == "issue_comment" and delivery.action == "created" \
        and mentions(delivery.comment, mention)
    if not (labelled or mentioned):
        return None
    project = normalise_remote_url(issue.clone_url) or issue.repository.lower()
    return Trigger(project, prompt_of(issue, delivery.comment if mentioned else ""), issue)


def prompt_of(issue: Issue, comment: str) -> str:
    kind = "pull request" if issue.is_pull_request else "issue"
    parts = [f"GitHub {kind} {issue.repository}#{issue.number}: {issue.title}", issue.url]
    if issue.body.strip():
        parts.append(issue.body.strip())
    if comment.strip():
        parts.append(f"Comment:\n{comment.strip()}")
    return "\n\n".join(parts)[:MAX_PROMPT_CHARS]


def backlink_text(task_id: str, topic_url: str | None, console_url: str | None) -> str:
    """The comment linking the issue to its task (it never mentions the bot, so it triggers nothing)."""
    where = f"Follow it in Telegram: {topic_url}" if topic_url else (
        f"Follow it in the console: {console_url}" if console_url else "Follow it with `itachi task show`.")
    return f"Itachi queued task `{task_id}` for this. {where}"
