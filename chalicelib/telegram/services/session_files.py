"""The files sent to a session's topic, handed to the session's machine when it asks for them.

The server keeps no bytes: a turn stores each file's Telegram `file_id`, and the machine's
`GET /api/sessions/{id}/files/{seq}/{index}` has the file fetched from Telegram there and then
and answered whole (base64), up to `MAX_ATTACHMENT_BYTES`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chalicelib.contracts.attachments import MAX_ATTACHMENT_BYTES
from chalicelib.kernel.errors import Unavailable
from chalicelib.telegram.services.ports import SendFailed

FileRef = Callable[[str, str, int, int], dict[str, Any]]  # (session, machine, seq, index) -> the stored file
Download = Callable[[str, int], bytes]  # (file_id, max bytes) -> the bytes, from Telegram


class SessionFiles:
    def __init__(self, file_ref: FileRef, download: Download) -> None:
        self._file_ref = file_ref
        self._download = download

    def fetch(self, session_id: str, machine_id: str, seq: int, index: int) -> tuple[str, bytes]:
        """The name and bytes of file `index` of turn `seq`, for the session's own machine."""
        ref = self._file_ref(session_id, machine_id, seq, index)
        try:
            return str(ref["name"]), self._download(str(ref["file_id"]), MAX_ATTACHMENT_BYTES)
        except SendFailed as error:
            raise Unavailable(f"Telegram did not hand over {ref['name']}: {error}") from None
