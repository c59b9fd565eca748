"""Files users send, as the Bot API hands them to a bot: `getFile`, then `/file/bot<token>/<file_path>`.

A test uploads bytes (`upload`) and puts the answer in an update's photo, document or voice.
`getFile` refuses an unknown id ("Bad Request: invalid file_id") and a file over 20 MB ("Bad
Request: file is too big"), as Telegram does for bots; the download path answers the bytes, or
404 for a path getFile never gave.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from http import HTTPStatus

from tests.fakes.local_http_server import Reply
from tests.fakes.telegram_wire import ApiError, Params

MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024  # the Bot API's getFile limit
_ids = itertools.count(1)


@dataclass(frozen=True)
class StoredFile:
    file_id: str
    file_unique_id: str
    content: bytes
    path: str


class FilesMixin:
    """The uploaded files; the server's lock is held when `_get_file` runs."""

    _files: dict[str, StoredFile]
    _paths: dict[str, StoredFile]

    def upload(self, content: bytes, folder: str = "documents", suffix: str = "") -> Params:
        """Store a file a user sent; return its fields (file_id, file_unique_id, file_size)."""
        n = next(_ids)
        stored = StoredFile(f"BQACAgfile{n:06d}x", f"AgADuniq{n:04d}", content, f"{folder}/file_{n}{suffix}")
        self._files[stored.file_id] = stored
        return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id, "file_size": len(content)}

    def _get_file(self, params: Params) -> Params:
        stored = self._files.get(str(params.get("file_id") or ""))
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if len(stored.content) > MAX_DOWNLOAD_BYTES:
            raise ApiError(400, "Bad Request: file is too big")
        self._paths[stored.path] = stored
        return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                "file_size": len(stored.content), "file_path": stored.path}

    def _download(self, path: str) -> Reply:
        stored = self._paths.get(path)
        if stored is None:
            return Reply(HTTPStatus.NOT_FOUND, {"ok": False, "error_code": 404, "description": "Not Found"})
        return Reply(HTTPStatus.OK, stored.content)
