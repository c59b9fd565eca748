"""POST /webhooks/github: GitHub's deliveries. Open to callers without a key: GitHub signs the body."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import BaseModel, ConfigDict

from chalicelib.kernel.http import ApiBlueprint, WireModel, error_response, ok, parse_body
from chalicelib.triggers.domain.github_events import Delivery, Issue, signature_valid

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings
    from chalicelib.triggers.services.github_triggers import GitHubTriggers


class Uses:
    github_triggers: GitHubTriggers
    settings: Settings


bp = ApiBlueprint(__name__, Uses)
SIGNATURE_HEADER = "X-Hub-Signature-256"
_IGNORE = ConfigDict(extra="ignore", defer_build=True)


class _Repository(BaseModel):
    model_config = _IGNORE
    full_name: str
    clone_url: str = ""


class _Issue(BaseModel):
    model_config = _IGNORE
    number: int
    title: str = ""
    body: str | None = None
    html_url: str = ""
    pull_request: dict[str, object] | None = None


class _Named(BaseModel):
    model_config = _IGNORE
    name: str = ""


class _User(BaseModel):
    model_config = _IGNORE
    type: str = ""


class _Comment(BaseModel):
    model_config = _IGNORE
    body: str | None = None
    html_url: str = ""
    user: _User | None = None


class GitHubPayload(WireModel):
    """The fields of an `issues` or `issue_comment` delivery a trigger reads; others are ignored."""

    model_config = _IGNORE
    action: str = ""
    repository: _Repository | None = None
    issue: _Issue | None = None
    label: _Named | None = None
    comment: _Comment | None = None
    sender: _User | None = None

    def delivery(self, event: str) -> Delivery:
        issue = None
        if self.issue is not None and self.repository is not None:
            issue = Issue(self.repository.full_name, self.repository.clone_url, self.issue.number,
                          self.issue.title, self.issue.body or "", self.issue.html_url,
                          self.issue.pull_request is not None)
        comment = self.comment or _Comment()
        return Delivery(event, self.action, issue, self.label.name if self.label else "",
                        comment.body or "", comment.html_url,
                        sender_is_bot=bool(self.sender and self.sender.type == "Bot"))


@bp.route("/webhooks/github", methods=["POST"])
def github_webhook() -> Response:
    request = bp.current_request
    container = bp.services
    raw = request.raw_body or b""
    body = raw.encode() if isinstance(raw, str) else raw
    signature = request.headers.get(SIGNATURE_HEADER, "")
    if not signature_valid(container.settings.github_webhook_secret, body, signature):
        return error_response(401, "unauthorized", f"missing or wrong {SIGNATURE_HEADER} signature")
    delivery_id = request.headers.get("X-GitHub-Delivery", "").strip()
    event = request.headers.get("X-GitHub-Event", "").strip()
    if not delivery_id or len(delivery_id) > 100:
        return error_response(400, "invalid_input", "an X-GitHub-Delivery header of at most 100 characters "
                              "is required", "X-GitHub-Delivery")
    if event not in ("issues", "issue_comment"):
        return ok({"ok": True, "ignored": event[:60] or "no event"})
    payload = parse_body(request, GitHubPayload)
    result = container.github_triggers.handle(delivery_id, payload.delivery(event))
    if result.task_id is None:
        return ok({"ok": True, "ignored": event})
    return ok({"ok": True, "task_id": result.task_id, "duplicate": result.duplicate,
               "commented": result.commented})
