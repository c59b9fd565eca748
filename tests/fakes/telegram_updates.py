"""The fake Bot API's webhook, command list and getUpdates (long polling) methods."""

from __future__ import annotations

import json
import threading
import time

from tests.fakes.telegram_wire import ApiError, Params


class UpdatesMixin:
    """Webhook state and the update queue; the server's lock is held when these run."""

    webhook_url: str
    commands: list[Params]
    closing: threading.Event
    _updates: list[Params]
    _updates_ready: threading.Condition

    def _set_webhook(self, params: Params) -> bool:
        self.webhook_url = str(params.get("url") or "")
        return True

    def _delete_webhook(self, params: Params) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _get_webhook_info(self, _: Params) -> Params:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _set_my_commands(self, params: Params) -> bool:
        self.commands = list(params.get("commands") or [])
        return True

    def _get_updates(self, params: Params) -> list[Params]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        if offset > 0:  # confirms, and forgets, every update below the offset
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:  # -n: only the last n updates are kept
            self._updates = self._updates[offset:]
        while not self._updates and not self.closing.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._updates_ready.wait(remaining)
        return [json.loads(json.dumps(u)) for u in self._updates[:limit]]
