"""The files sent to a session's or a task's topic, handed to its machine when it asks for them.

The server keeps no bytes: a session turn or a task message stores each file's Telegram
`file_id`, and the machine's `GET /api/sessions/{id}/files/{seq}/{index}` (a session) or
`GET /api/tasks/{id}/files/{seq}/{index}` (a task) has the file fetched from Telegram there and
then and answered whole (base64), up to `MAX_ATTACHMENT_BYTES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chalicelib.contracts.attachments import MAX_ATTACHMENT_BYTES
from chalicelib.kernel.errors import Unavailable
from chalicelib.telegram.services.ports import SendFailed

FileRef = Callable[[str, str, int, int], dict[str, Any]]  # (owner id, machine, seq, index) -> the stored file
Download = Callable[[str, int], bytes]  # (file_id, max bytes) -> the bytes, from Telegram
SESSION, TASK = "session", "task"  # what a file was sent to


class AttachedFiles:
    def __init__(self, refs: Mapping[str, FileRef], download: Download) -> None:
        self._refs = dict(refs)  # SESSION and TASK: each owner's stored file, for its own machine only
        self._download = download

    def fetch(self, owner: str, owner_id: str, machine_id: str, seq: int, index: int) -> tuple[str, bytes]:
        """The name and bytes of file `index` of message `seq` of a session or task, for its machine."""
        ref = self._refs[owner](owner_id, machine_id, seq, index)
        try:
            return str(ref["name"]), self._download(str(ref["file_id"]), MAX_ATTACHMENT_BYTES)
        except SendFailed as error:
            raise Unavailable(f"Telegram did not hand over {ref['name']}: {error}") from None
