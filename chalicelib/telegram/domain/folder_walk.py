"""The session picker's folder walk: what a reply in the topic means, and how a listing reads.

`0` starts the session in the folder shown, a number enters that folder, `..` goes up, `+`
shows the next page. Anything else (a typed path such as `../../etc` included) is refused
here; the agent separately refuses any path outside its configured roots.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_REPLY = re.compile(r"^\s*(\d{1,4}|\.\.|\+)\s*$")


@dataclass(frozen=True)
class FolderWalk:
    request_id: str
    chat_id: int
    topic_id: int
    machine: str
    engine: str
    label: str
    prompt: str
    title: str
    listing_id: str
    path: str | None = None  # None until the first listing arrives; "" the roots
    parent: str | None = None
    entries: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    total: int = 0
    offset: int = 0
    status: str = "walking"


@dataclass(frozen=True)
class Step:
    """What a reply asks for: start here, list a folder (path, offset), or an explanation."""

    start: bool = False
    path: str | None = None
    offset: int = 0
    refusal: str | None = None


HOW = "Reply 0 to start here, a number to open that folder, .. to go up, + for more."


def is_walk_reply(text: str) -> bool:
    return bool(_REPLY.match(text))


def step(walk: FolderWalk, text: str) -> Step:
    """The next step of the walk for a reply in its topic."""
    match = _REPLY.match(text)
    if match is None:
        return Step(refusal=f"Only the listed folders can be opened. {HOW}")
    if walk.path is None:
        return Step(refusal="The folder list has not arrived yet.")
    reply = match.group(1)
    if reply == "0":
        return Step(refusal="Open a folder first: the top lists the roots.") if not walk.path else Step(True)
    if reply == "..":
        if walk.parent is None:
            return Step(refusal="This is the top: the machine's configured folders.")
        return Step(path=walk.parent)
    if reply == "+":
        nxt = walk.offset + len(walk.entries)
        return Step(path=walk.path, offset=nxt) if nxt < walk.total else Step(refusal="No more folders here.")
    index = int(reply) - walk.offset - 1
    if not 0 <= index < len(walk.entries):
        return Step(refusal=f"No folder {reply} here. {HOW}")
    name = str(walk.entries[index]["name"])
    if walk.path == "":
        return Step(path=name)  # a root, by its full path
    if "/" in name or "\\" in name or name in (".", ".."):
        return Step(refusal="That entry is not a folder name.")
    return Step(path=f"{walk.path.rstrip('/')}/{name}")


def listing_text(machine: str, listing: Mapping[str, Any]) -> str:
    """A listing as the topic shows it: numbered folders, repos marked."""
    if listing.get("error"):
        return f"⛔ {listing.get('path') or 'that folder'}: {listing['error']}"
    path, entries = listing.get("path") or "", listing.get("entries") or []
    offset = int(listing.get("offset") or 0)
    lines = [f"📂 {path or f'Folders on {machine}'}"]
    if path:
        lines.append("0. ▶️ start here")
    for number, entry in enumerate(entries, start=offset + 1):
        lines.append(f"{number}. {entry['name']}{' (git)' if entry.get('repo') else ''}")
    if not entries:
        lines.append("(no folders)" if path else "(no folders are configured on this machine)")
    total = int(listing.get("total") or 0)
    if offset + len(entries) < total:
        lines.append(f"+ more ({total - offset - len(entries)})")
    if listing.get("parent") is not None:
        lines.append(".. up")
    lines += ["", HOW]
    return "\n".join(lines)
