"""Approval requests in Telegram: a message with Approve / Deny / Always (a plan: Approve plan /
Revise), edited once decided."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib.approvals.domain.approvals import (
    Approval,
    buttons,
    callback_data,
    decided_text,
    request_text,
    revising_text,
)

if TYPE_CHECKING:
    from chalicelib.kernel.notifier import Notifier


class TelegramApprovalChannel:
    def __init__(self, gateway: Callable[[], Notifier], chat_id: int) -> None:
        self._gateway, self._chat_id = gateway, chat_id

    def post(self, approval: Approval) -> tuple[int, int] | None:
        if not self._chat_id:
            return None
        keyboard = [[(label, callback_data(approval.id, code)) for label, code in buttons(approval)]]
        message_id = self._gateway().send(self._chat_id, request_text(approval),
                                          topic_id=approval.topic_id or 0, keyboard=keyboard)
        return self._chat_id, message_id

    def refresh(self, approval: Approval) -> None:
        if approval.chat_id and approval.message_id:
            text = revising_text(approval) if approval.revising else decided_text(approval)
            self._gateway().edit(approval.chat_id, approval.message_id, text)


class NoApprovalChannel:
    def post(self, approval: Approval) -> tuple[int, int] | None:
        return None

    def refresh(self, approval: Approval) -> None:
        return None
