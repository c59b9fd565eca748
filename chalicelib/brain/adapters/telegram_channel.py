"""Proposals in Telegram: a message with Approve / Reject, edited when the proposal is decided."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chalicelib.brain.domain.proposals import Proposal, callback_data, proposal_text

if TYPE_CHECKING:
    from chalicelib.kernel.notifier import Notifier


class TelegramProposalChannel:
    def __init__(self, gateway: Callable[[], Notifier], chat_id: int) -> None:
        self._gateway, self._chat_id = gateway, chat_id

    def post(self, proposal: Proposal) -> tuple[int, int] | None:
        keyboard = [[("✅ Approve", callback_data(proposal.id, True)),
                     ("✖️ Reject", callback_data(proposal.id, False))]]
        message_id = self._gateway().send(self._chat_id, proposal_text(proposal), keyboard=keyboard)
        return self._chat_id, message_id

    def refresh(self, proposal: Proposal) -> None:
        if proposal.telegram_chat_id and proposal.telegram_message_id:
            self._gateway().edit(proposal.telegram_chat_id, proposal.telegram_message_id,
                                 proposal_text(proposal))
