"""Encrypted file sync: push ciphertext, pull what changed since a cursor, list the files.

Bodies carry ciphertext as base64. Nothing here logs or returns plaintext: the server has none.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Annotated

from chalice import Response
from pydantic import Field

from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, WireModel, ok, parse_body, parse_query
from chalicelib.kernel.wire import Count, Int64
from chalicelib.sync.domain.sync_model import FileVersion, PushItem, SyncConflict

if TYPE_CHECKING:
    from chalicelib.sync.services.file_sync import FileSync


class Uses:
    file_sync: FileSync


bp = ApiBlueprint(__name__, Uses)


class PushFile(WireModel):
    path: str = Field(min_length=1, max_length=400)
    base_version: Count
    ciphertext: str | None = Field(default=None, max_length=1_000_000)  # base64; None with deleted
    content_hash: str | None = Field(default=None, pattern=r"^[0-9a-fA-F]{64}$")
    deleted: bool = False


class PushBody(WireModel):
    project: str = Field(min_length=1, max_length=200)
    machine_id: str = Field(min_length=1, max_length=40)
    files: list[PushFile] = Field(min_length=1, max_length=500)


class PullQuery(WireModel):
    project: str = Field(min_length=1, max_length=200)
    since: Annotated[Int64, Field(ge=0)] = 0
    limit: int = Field(default=200, ge=1, le=500)


class FilesQuery(WireModel):
    project: str | None = Field(default=None, min_length=1, max_length=200)
    since: Annotated[Int64, Field(ge=0)] | None = None


def _item(f: PushFile) -> PushItem:
    if f.deleted != (f.ciphertext is None):
        raise InvalidInput(f"{f.path}: give ciphertext, or deleted: true without it", field="ciphertext")
    if f.ciphertext is None:
        return PushItem(f.path, f.base_version, None)
    try:
        blob = base64.b64decode(f.ciphertext, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(f"{f.path}: ciphertext is not base64", field="ciphertext") from None
    return PushItem(f.path, f.base_version, blob, f.content_hash)


def _with_blob(v: FileVersion) -> dict[str, object]:
    blob = base64.b64encode(v.ciphertext).decode() if v.ciphertext is not None else None
    return {**v.metadata(), "ciphertext": blob}


@bp.route("/api/sync/push", methods=["POST"])
def push() -> Response:
    body = parse_body(bp.current_request, PushBody)
    try:
        stored = bp.services.file_sync.push(body.project, body.machine_id, [_item(f) for f in body.files])
    except SyncConflict as conflict:
        return Response(status_code=409, headers={"Content-Type": "application/json"}, body={
            "error": conflict.code, "message": conflict.message,
            "conflicts": [s.to_json() for s in conflict.stale]})
    return ok({"files": [v.metadata() for v in stored]})


@bp.route("/api/sync/pull", methods=["GET"])
def pull() -> Response:
    q = parse_query(bp.current_request, PullQuery)
    page = bp.services.file_sync.pull(q.project, q.since, q.limit)
    return ok({"files": [_with_blob(v) for v in page.files], "cursor": page.cursor, "more": page.more})


@bp.route("/api/sync/files", methods=["GET"])
def files() -> Response:
    """Metadata only. With `project` and `since`: what changed after that cursor (and the new cursor)."""
    q = parse_query(bp.current_request, FilesQuery)
    sync = bp.services.file_sync
    if q.since is not None:
        if q.project is None:
            raise InvalidInput("since needs a project", field="project")
        page = sync.changes(q.project, q.since)
        return ok({"files": [v.metadata() for v in page.files], "cursor": page.cursor, "more": page.more})
    listed = sync.listing(q.project)
    return ok({"files": [{"project": v.project, **v.metadata()} for v in listed]})
