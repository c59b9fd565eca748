"""Read a session transcript into conversation turns: user prompts and assistant text.

Claude Code writes one JSONL line per assistant content block; the blocks of one reply share
``message.id`` and are grouped into one turn, numbered by its first line. Codex rollout
files (``response_item`` lines) and Gemini's JSON session files are read too. Reading is
bounded (``MAX_BYTES`` from the end of the file) so a huge transcript cannot stall a hook.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from hooks.transcript_lines import assistant_blocks, codex_item, gemini_turns, user_text

MAX_BYTES = 16_000_000
MAX_TURN_CHARS = 8000
_INTERESTING = (b'"user"', b'"assistant"', b'"response_item"')


class Transcript:
    """The turns of one session, the files it wrote, and its wall-clock length."""

    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self.files_changed: list[str] = []
        self.first_at = ""
        self.last_at = ""

    @property
    def duration_ms(self) -> int | None:
        try:
            start = datetime.fromisoformat(self.first_at)
            end = datetime.fromisoformat(self.last_at)
        except ValueError:
            return None
        return max(0, int((end - start).total_seconds() * 1000))

    def add(self, role: str, text: str, line: int) -> None:
        text = text.strip()
        if text:
            self.turns.append({"role": role, "text": text[:MAX_TURN_CHARS], "line": line})

    def touched(self, path: str) -> None:
        if path and path not in self.files_changed:
            self.files_changed.append(path)


def read_transcript(path: str | Path, max_bytes: int = MAX_BYTES) -> Transcript:
    """Parse the transcript at path; a missing or unreadable file gives an empty one."""
    transcript = Transcript()
    file = Path(path)
    try:
        if file.suffix == ".json":
            gemini_turns(json.loads(file.read_text(encoding="utf-8")), transcript)
            return transcript
        with open(file, "rb") as handle:
            _read_jsonl(handle, file.stat().st_size, max_bytes, transcript)
    except (OSError, ValueError):
        pass
    return transcript


def _read_jsonl(handle: Any, size: int, max_bytes: int, transcript: Transcript) -> None:
    line_no = _skip_prefix(handle, size - max_bytes) if size > max_bytes else 0
    groups: dict[str, dict[str, Any]] = {}
    for raw in handle:
        line_no += 1
        if not any(marker in raw for marker in _INTERESTING):
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(obj, dict) or obj.get("isSidechain"):
            continue
        stamp = str(obj.get("timestamp") or "")
        if stamp:
            transcript.first_at = transcript.first_at or stamp
            transcript.last_at = stamp
        kind = obj.get("type")
        if kind == "user":
            transcript.add("user", user_text(obj), line_no)
        elif kind == "assistant":
            message_id, texts, files = assistant_blocks(obj, line_no)
            for file in files:
                transcript.touched(file)
            group = groups.get(message_id)
            if group is None:
                group = {"role": "assistant", "text": "", "line": line_no}
                groups[message_id] = group
                transcript.turns.append(group)
            group["text"] = "\n".join(t for t in [group["text"], *texts] if t)[:MAX_TURN_CHARS]
        elif kind == "response_item":
            codex_item(obj.get("payload"), line_no, transcript)
    transcript.turns = [t for t in transcript.turns if str(t["text"]).strip()]


def _skip_prefix(handle: Any, offset: int) -> int:
    """Seek past offset and its partial line; return how many lines were skipped."""
    skipped = 0
    remaining = offset
    while remaining > 0:
        chunk = handle.read(min(1 << 20, remaining))
        if not chunk:
            break
        skipped += chunk.count(b"\n")
        remaining -= len(chunk)
    handle.readline()
    return skipped + 1


def recent_turns(turns: list[dict[str, Any]], max_chars: int) -> list[dict[str, Any]]:
    """Keep the most recent turns whose texts fit in max_chars together."""
    kept: list[dict[str, Any]] = []
    used = 0
    for turn in reversed(turns):
        used += len(str(turn["text"]))
        if used > max_chars and kept:
            break
        kept.append(turn)
    return kept[::-1]


def conversation_text(turns: list[dict[str, Any]], limit: int = 12000) -> str:
    """Render turns as 'User:/Assistant:' paragraphs, most recent kept within limit chars."""
    paragraphs = [f"{t['role'].capitalize()}: {t['text']}" for t in turns]
    text = "\n\n".join(paragraphs)
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    boundary = re.search(r"\n\n(?=(User|Assistant): )", cut)
    return "[earlier conversation truncated]\n\n" + (cut[boundary.end():] if boundary else cut)
