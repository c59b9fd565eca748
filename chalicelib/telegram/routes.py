"""POST /telegram/webhook: Telegram's updates. Outside /api/*: Telegram's secret header, not an API key."""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Protocol

from chalice import Response
from pydantic import BaseModel, ConfigDict

from chalicelib.kernel.http import ApiBlueprint, error_response, ok, parse_body
from chalicelib.kernel.wire import Int64, strip_nul

if TYPE_CHECKING:
    from chalicelib.kernel.settings import Settings
    from chalicelib.telegram.services.telegram_intake import TelegramIntake

class Uses(Protocol):
    @property
    def settings(self) -> Settings: ...
    @property
    def telegram_intake(self) -> TelegramIntake: ...


bp: ApiBlueprint[Uses] = ApiBlueprint(__name__)
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
