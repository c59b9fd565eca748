"""/session requests: kept until the user picks an engine and mode, taken once when they do."""

from __future__ import annotations

import secrets

from chalicelib.telegram.domain.telegram_records import SessionRequestRow
from chalicelib.telegram.services.ports import UnitOfWorkFactory


class SessionRequests:
    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self._uow = uow

    def create(self, chat_id: int, topic_id: int, user_id: int, machine: str, prompt: str) -> str:
        """Store a request; return the id its picker buttons carry (10 hex digits: callback data is short)."""
        request = SessionRequestRow(secrets.token_hex(5), chat_id, topic_id, user_id, machine, prompt)
        with self._uow() as uow:
            uow.session_requests.add(request)
            uow.commit()
        return request.id

    def choose(self, request_id: str) -> SessionRequestRow | None:
        """Take the request once: a second press of any picker button gets None."""
        with self._uow() as uow:
            request = uow.session_requests.choose(request_id)
            uow.commit()
        return request

    def attach_session(self, request_id: str, session_id: str) -> None:
        with self._uow() as uow:
            uow.session_requests.attach_session(request_id, session_id)
            uow.commit()
