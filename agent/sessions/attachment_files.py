"""The files of a session turn or a task message: fetched from the server, saved in the folder the
engine works in (the session's folder, the task's worktree), named in the text the engine gets.

Each file comes whole from `GET /api/sessions/{id}/files/{seq}/{index}` or
`GET /api/tasks/{id}/files/{seq}/{index}` (the server fetches it from Telegram on this request;
it keeps no copy). It lands in `itachi-attachments/` of that folder under a cleaned name that
never replaces an earlier file; an archive is checked again and unpacked into a folder of its
own (`chalicelib/contracts/attachments.py`). The folder ignores itself in git (a `.gitignore` of
`*`), so a task's commit and its changed files leave the attachments out.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from chalicelib.contracts.api_transport import ApiError
from chalicelib.contracts.attachments import (
    ATTACHMENTS_DIR,
    BadArchive,
    archive_stem,
    attachment_note,
    extract_archive,
    is_archive,
    safe_name,
)

Fetch = Callable[[str], Any]  # GET a path of the API, answer its JSON


def with_files(prompt: str, names: Sequence[str], saved: Sequence[str], engine: str) -> str:
    """The turn as the engine reads it: the note naming the saved files, then the user's text."""
    note = attachment_note(saved, engine)
    missing = len(names) - len(saved)
    if missing:
        note += ("\n" if note else "") + f"({missing} attached file(s) could not be saved.)"
    return f"{note}\n\n{prompt}".strip() if note else prompt


def save_files(fetch: Fetch, files_path: str, seq: int, names: Sequence[str], cwd: Path,
               notice: Callable[[str], None]) -> list[str]:
    """Fetch and save each file of message `seq` from `files_path` (`/api/sessions/{id}/files` or
    `/api/tasks/{id}/files`); return their paths relative to `cwd`."""
    folder = cwd / ATTACHMENTS_DIR
    saved = []
    for index, name in enumerate(names):
        try:
            answer = fetch(f"{files_path}/{seq}/{index}")
            data = base64.b64decode(str(answer["content_b64"]), validate=True)
            saved.append(_store(folder, str(answer.get("name") or name), data).relative_to(cwd).as_posix())
        except (ApiError, KeyError, binascii.Error) as exc:
            notice(f"could not fetch {name}: {getattr(exc, 'message', exc)}")
        except BadArchive as exc:
            notice(f"archive refused: {exc}")
        except OSError as exc:
            notice(f"could not save {name}: {exc.strerror or exc}")
    return saved


def _store(folder: Path, name: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():  # the user's files are the engine's to read, never the task's to commit
        ignore.write_text("*\n")
    clean = safe_name(name)
    if is_archive(clean):
        target = _free(folder, safe_name(archive_stem(clean), "archive"))
        extract_archive(clean, data, target)
        return target
    target = _free(folder, clean)
    target.write_bytes(data)
    return target


def _free(folder: Path, name: str) -> Path:
    """`name` in `folder`, or name-2, name-3... if taken (an earlier turn's file stays)."""
    stem, dot, suffix = name.partition(".")
    candidate, n = folder / name, 1
    while candidate.exists() or candidate.is_symlink():
        n += 1
        candidate = folder / f"{stem}-{n}{dot}{suffix}"
    return candidate
