"""Files sent to a session's topic: their caps, their names on disk, archives checked and unpacked.

Standard library only: the bot checks an archive when it arrives (a bad one is refused in the
topic) and the agent checks it again as it unpacks it into the session's folder, under
`ATTACHMENTS_DIR`. An archive is refused when a member's path is absolute or climbs out (`..`),
when it holds a link (symbolic or hard) or a device, when it has more than `MAX_ARCHIVE_FILES`
members, or when its members add up to more than `MAX_ARCHIVE_BYTES` uncompressed.
"""

from __future__ import annotations

import io
import re
import tarfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ATTACHMENTS_DIR = "itachi-attachments"  # in the session's folder, where the user can see it
MAX_ATTACHMENT_BYTES = 4 * 1024 * 1024  # one file: the agent's fetch is base64 in a Lambda answer (6 MB)
MAX_ARCHIVE_FILES = 1000
MAX_ARCHIVE_BYTES = 100 * 1024 * 1024  # every member, uncompressed
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})
_ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_NOTE = "Attached: "


class BadArchive(ValueError):
    """The archive may not be unpacked; the message says why, for the user."""


@dataclass(frozen=True)
class Member:
    path: str  # relative, POSIX, confined
    size: int
    is_dir: bool


def is_archive(name: str) -> bool:
    return name.lower().endswith(_ARCHIVE_SUFFIXES)


def is_image(path: str) -> bool:
    return PurePosixPath(path).suffix.lower() in IMAGE_SUFFIXES


def safe_name(name: str, fallback: str = "file") -> str:
    """A file name with no folder part and only [A-Za-z0-9._-] (spaces and the rest become '-')."""
    base = PurePosixPath(name.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("-", base).strip(".-")
    return cleaned[:120] or fallback


def archive_stem(name: str) -> str:
    lowered = name.lower()
    for suffix in _ARCHIVE_SUFFIXES:
        if lowered.endswith(suffix):
            return name[: -len(suffix)] or "archive"
    return name


def check_archive(name: str, data: bytes) -> list[Member]:
    """The archive's members, or BadArchive naming the first rule it breaks."""
    try:
        members = _zip_members(data) if name.lower().endswith(".zip") else _tar_members(data)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as error:
        raise BadArchive(f"{name} is not a readable archive ({error})") from None
    if len(members) > MAX_ARCHIVE_FILES:
        raise BadArchive(f"{name} holds {len(members)} entries; at most {MAX_ARCHIVE_FILES} are unpacked")
    total = sum(m.size for m in members)
    if total > MAX_ARCHIVE_BYTES:
        raise BadArchive(f"{name} unpacks to {total} bytes; at most {MAX_ARCHIVE_BYTES} are unpacked")
    return members


def extract_archive(name: str, data: bytes, dest: Path) -> list[Member]:
    """Unpack a checked archive into `dest` (made here): regular files and folders only."""
    members = check_archive(name, data)
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    for member, content in _contents(name, data):
        target = (root / member.path).resolve()
        if not target.is_relative_to(root):  # a folder of the destination is a link made earlier
            raise BadArchive(f"{name}: {member.path} leaves the archive's folder")
        if member.is_dir:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            raise BadArchive(f"{name}: {member.path} is a link")
        target.write_bytes(content)
    return members


def attachment_note(paths: Sequence[str], engine: str) -> str:
    """The line that names a turn's files: Gemini CLI reads the files named as @path."""
    if not paths:
        return ""
    shown = [f"@{p}" if engine == "gemini" else p for p in paths]
    return _NOTE + ", ".join(shown)


def attached_images(prompt: str) -> list[str]:
    """The images that `attachment_note` named in a prompt (for Codex's --image)."""
    for line in prompt.splitlines():
        if line.startswith(_NOTE):
            named = [p.strip().lstrip("@") for p in line[len(_NOTE):].split(",")]
            return [p for p in named if p.startswith(f"{ATTACHMENTS_DIR}/") and is_image(p)]
    return []


def _confined(raw: str, archive: str) -> str:
    path = PurePosixPath(raw.replace("\\", "/"))
    if path.is_absolute() or re.match(r"^[A-Za-z]:", raw):
        raise BadArchive(f"{archive}: {raw} is an absolute path")
    if ".." in path.parts:
        raise BadArchive(f"{archive}: {raw} climbs out of the archive (..)")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts:
        raise BadArchive(f"{archive}: an entry has an empty name")
    return "/".join(parts)


def _zip_members(data: bytes) -> list[Member]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [_zip_member(info) for info in archive.infolist()]


def _zip_member(info: zipfile.ZipInfo) -> Member:
    mode = info.external_attr >> 16
    if mode and (mode & 0o170000) not in (0o100000, 0o040000, 0):  # a link, a device, a fifo
        raise BadArchive(f"{info.filename} is a link or a special file")
    return Member(_confined(info.filename, "zip"), info.file_size, info.is_dir())


def _tar_members(data: bytes) -> list[Member]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        members = []
        for info in archive.getmembers():
            if not (info.isfile() or info.isdir()):
                raise BadArchive(f"{info.name} is a link or a special file")
            members.append(Member(_confined(info.name, "tar"), info.size, info.isdir()))
        return members


def _contents(name: str, data: bytes) -> list[tuple[Member, bytes]]:
    if name.lower().endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return [(_zip_member(info), b"" if info.is_dir() else archive.read(info))
                    for info in archive.infolist()]
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
        out = []
        for info in archive.getmembers():
            member = Member(_confined(info.name, "tar"), info.size, info.isdir())
            handle = archive.extractfile(info) if info.isfile() else None
            out.append((member, handle.read() if handle is not None else b""))
        return out
