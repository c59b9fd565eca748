"""The git-friendly memory file: Markdown with a front matter, one file per memory or archive.

Stdlib only (the CLI writes and reads these; the server validates the records it is sent).
Layout of an export directory:

    <DIR>/<project>/memories/<id>.md     a memory: front matter, then its content
    <DIR>/<project>/archives/<id>.md     the archived original of an evicted memory
    <DIR>/<project>/graph/nodes/<id>.md  a graph node: front matter, then its content
    <DIR>/<project>/graph/edges.jsonl    the edges leaving the project's nodes, one a line
    <DIR>/<project>/graph/contradictions.jsonl   the contradictions its nodes raised, one a line

The front matter is YAML in its JSON-compatible subset: one `key: <JSON value>` per line, keys
sorted, so any YAML parser reads it and the same record always renders to the same bytes. The
body is the content followed by one newline (a reader removes exactly one). A content holding a
carriage return is put in the front matter (`content:`) instead, so files only ever hold LF
line endings. Nothing volatile is written (no export time, no access counts), so exporting an
unchanged store twice gives no diff. A `.jsonl` file holds one JSON object a line (keys
sorted), lines in the order of their ids, so an added or removed row is one line of diff.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

FENCE = "---"
MEMORY_KEYS = frozenset({
    "category", "confidence", "content_hash", "created_at", "files", "id", "last_reinforced_at", "metadata",
    "phase", "project", "session_id", "significance", "source", "source_ids", "summary", "superseded_by",
    "tags", "times_reinforced", "trusted"})
# An instruction's validity, written only when set: files of other memories, and files written
# before validity existed, read unchanged. `written`: how many memories of its project stored at
# the same `created_at` were written before it (a batch, an import), written only when not 0.
MEMORY_OPTIONAL_KEYS = frozenset({"valid_from", "valid_until", "written"})
ARCHIVE_KEYS = frozenset({"archived_at", "category", "id", "project", "summary"})
NODE_KEYS = frozenset({
    "attributes", "can_summarize", "confidence", "created_at", "id", "name_key", "node_type", "project",
    "salience", "scope", "source", "subtype", "superseded_by", "trusted", "valid_from", "valid_until"})
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def write_order(record: dict[str, Any]) -> tuple[str, datetime, int]:
    """The order memories were written in, which an import keeps (search's neighbours and each
    memory's context, the one before it, follow it): by project, time, then `written`."""
    at = record["created_at"]
    return record["project"], datetime.fromisoformat(at) if isinstance(at, str) else at, \
        int(record.get("written") or 0)


class BadMemoryFile(ValueError):
    """A file that is not a memory file this format can read; the message says why."""


def project_dir(project: str) -> str:
    """The project's folder name: every character outside [A-Za-z0-9._-] percent-encoded."""
    name = _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group(0).encode()), project)
    return name if name not in {".", ".."} else name.replace(".", "%2E")


def render(record: dict[str, Any], content: str) -> str:
    """The file text of one record (front matter keys sorted) and its content."""
    head = dict(record)
    body = content
    if "\r" in content:
        head["content"], body = content, ""
    lines = [FENCE] + [f"{key}: {json.dumps(head[key], ensure_ascii=False, sort_keys=True)}"
                       for key in sorted(head)] + [FENCE]
    return "\n".join(lines) + "\n" + (body + "\n" if body else "")


def parse(text: str, allowed: frozenset[str], optional: frozenset[str] = frozenset()
          ) -> tuple[dict[str, Any], str]:
    """(front matter, content) of a file (every key of `allowed`, those of `optional` when given);
    BadMemoryFile naming what is wrong."""
    if not text.startswith(FENCE + "\n"):
        raise BadMemoryFile("does not start with a '---' front matter")
    end = text.find("\n" + FENCE + "\n", len(FENCE))
    if end < 0:
        raise BadMemoryFile("the front matter is not closed by '---'")
    head: dict[str, Any] = {}
    for number, line in enumerate(text[len(FENCE) + 1:end].split("\n"), start=2):
        key, sep, raw = line.partition(": ")
        if not sep or not key:
            raise BadMemoryFile(f"line {number}: expected 'key: value'")
        if key not in allowed and key not in optional and key != "content":
            raise BadMemoryFile(f"line {number}: unknown key {key!r}")
        try:
            head[key] = json.loads(raw)
        except ValueError:
            raise BadMemoryFile(f"line {number}: the value of {key!r} is not valid") from None
    missing = sorted(allowed - head.keys())
    if missing:
        raise BadMemoryFile(f"missing {', '.join(missing)}")
    body = text[end + len(FENCE) + 2:]
    if "content" in head:
        content = head.pop("content")
        if not isinstance(content, str) or body:
            raise BadMemoryFile("content is given twice")
        return head, content
    return head, body[:-1] if body.endswith("\n") else body


def render_lines(records: list[dict[str, Any]]) -> str:
    """The `.jsonl` text of records: one a line, keys sorted, in the order of their ids."""
    ordered = sorted(records, key=lambda r: str(r["id"]))
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in ordered)


def parse_lines(text: str) -> list[dict[str, Any]]:
    """The records of a `.jsonl` text; BadMemoryFile naming the first line that is not one."""
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            raise BadMemoryFile(f"line {number}: not a JSON object") from None
        if not isinstance(record, dict) or "id" not in record:
            raise BadMemoryFile(f"line {number}: not a record with an id")
        records.append(record)
    return records


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` (LF, UTF-8) unless the file already holds exactly it; True if written."""
    data = text.encode()
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return True
