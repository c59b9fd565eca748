"""POST /telegram/webhook: Telegram's updates. Outside /api/*: Telegram's secret header, not an API key.

GET /api/sessions/{id}/files/{seq}/{index}, GET /api/tasks/{id}/files/{seq}/{index}: a file sent to a
session's or a task's topic, for its machine."""

from __future__ import annotations

import base64
import hmac
from typing import TYPE_CHECKING

from chalice import Response
from pydantic import BaseModel, ConfigDict, Field

from chalicelib.kernel.http import ApiBlueprint, WireModel, error_response, ok, parse_body, parse_query
from chalicelib.kernel.wire import Int64, strip_nul

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings
    from chalicelib.telegram.services.attached_files import AttachedFiles
    from chalicelib.telegram.services.telegram_intake import TelegramIntake


class Uses:
    settings: Settings
    telegram_intake: TelegramIntake
    attached_files: AttachedFiles


bp = ApiBlueprint(__name__, Uses)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class UpdateEnvelope(BaseModel):
    """What must hold for any update; the rest is PTB's to parse in the consumer."""

    model_config = ConfigDict(extra="ignore")
    update_id: Int64


def secret_matches(given: str, expected: str) -> bool:
    """Constant-time comparison; with no secret configured nothing matches."""
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


@bp.route("/telegram/webhook", methods=["POST"])
def telegram_webhook() -> Response:
    request = bp.current_request
    container = bp.services
    if not secret_matches(request.headers.get(SECRET_HEADER, ""), container.settings.telegram_webhook_secret):
        return error_response(401, "unauthorized", f"missing or wrong {SECRET_HEADER} header")
    parse_body(request, UpdateEnvelope)
    # Acknowledge at once: the handlers run from the queue, so a slow one never causes a redelivery.
    # An update is captured text: NULs are removed rather than refused (Telegram would redeliver).
    accepted = container.telegram_intake.accept(strip_nul(request.json_body))
    return ok({"ok": True, "duplicate": not accepted})


class FileQuery(WireModel):
    machine_id: str = Field(min_length=1, max_length=100)


@bp.route("/api/sessions/{session_id}/files/{seq}/{index}", methods=["GET"])
def session_file(session_id: str, seq: str, index: str) -> Response:
    q = parse_query(bp.current_request, FileQuery)
    return _file("session", session_id, q.machine_id, seq, index)


@bp.route("/api/tasks/{task_id}/files/{seq}/{index}", methods=["GET"])
def task_file(task_id: str, seq: str, index: str) -> Response:
    q = parse_query(bp.current_request, FileQuery)
    return _file("task", task_id, q.machine_id, seq, index)


def _file(owner: str, owner_id: str, machine_id: str, seq: str, index: str) -> Response:
    if not (seq.isdigit() and index.isdigit()):
        return error_response(400, "invalid_input", "seq and index are whole numbers")
    name, data = bp.services.attached_files.fetch(owner, owner_id, machine_id, int(seq), int(index))
    return ok({"name": name, "size": len(data), "content_b64": base64.b64encode(data).decode()})
