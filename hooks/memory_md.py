"""Keep the Itachi-managed sections of Claude Code's auto-memory file MEMORY.md current.

Only ``## Itachi Session Context`` and ``## Project Rules`` belong to Itachi. Every other byte
of the file is the user's (or Claude's) and is written back unchanged, wherever it sits.
Claude Code loads only the first ``VISIBLE_LINES`` lines, so the managed sections are bounded
(``SECTION_QUOTAS``) and moved to the top of the file if user content has pushed them below.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

MARKER = "<!-- auto-updated by itachi session-start hook -->"
CONTEXT_HEADING = "## Itachi Session Context"
RULES_HEADING = "## Project Rules"
SECTION_QUOTAS = {CONTEXT_HEADING: 40, RULES_HEADING: 20}  # lines, heading and blanks included
VISIBLE_LINES = 200
MAX_LINE_CHARS = 240
_HEADING = re.compile(r"^#{1,2}[ \t]")
_FENCE = re.compile(r"^\s*(```|~~~)")


def encode_cwd(cwd: str) -> str:
    """Encode a directory the way Claude Code names its project folders."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def claude_config_dir(env: Mapping[str, str] = os.environ) -> Path:
    explicit = env.get("CLAUDE_CONFIG_DIR")
    return Path(explicit).expanduser() if explicit else Path.home() / ".claude"


def memory_md_path(cwd: str, config_dir: Path) -> Path:
    return config_dir / "projects" / encode_cwd(cwd) / "memory" / "MEMORY.md"


def render_section(heading: str, body: list[str], newline: str = "\n") -> str:
    """Render one managed section within its quota, ending with a blank line."""
    room = SECTION_QUOTAS[heading] - 4
    lines = [_one_line(line) for line in body][:room]
    return newline.join([heading, MARKER, "", *lines, ""]) + newline


def merge_sections(existing: str, bodies: Mapping[str, list[str]]) -> str:
    """Replace the managed sections named in bodies; keep everything else byte for byte."""
    newline = "\r\n" if "\r\n" in existing else "\n"
    segments = _split(existing)
    present = [key for key, _ in segments if key is not None]
    managed: dict[str, str] = {}
    for key, text in segments:
        if key is not None and key not in managed:
            managed[key] = _cap(text, SECTION_QUOTAS[key], newline)
    for heading, body in bodies.items():
        managed[heading] = render_section(heading, body, newline)
    ordered = [h for h in SECTION_QUOTAS if h in managed]
    out: list[tuple[bool, str]] = []
    placed: set[str] = set()
    for key, text in segments:
        if key is None:
            out.append((False, text))
        elif key not in placed:
            # A section the file lacks joins its sibling, in the canonical order.
            group = [h for h in ordered if h not in present or h == key]
            out.extend((True, managed[h]) for h in group if h not in placed)
            placed.update(group)
    if ordered and (not placed or _last_managed_line(out) > VISIBLE_LINES):
        out = [(True, managed[h]) for h in ordered] + [(k, t) for k, t in out if not k]
    return "".join(text for _, text in out)


def read_memory_md(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return ""


def update_memory_md(path: Path, bodies: Mapping[str, list[str]]) -> bool:
    """Merge bodies into the file at path atomically; return whether it changed."""
    existing = read_memory_md(path)
    merged = merge_sections(existing, bodies)
    if merged == existing:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_bytes(merged.encode("utf-8", errors="surrogateescape"))
    if path.exists():
        os.chmod(temp, stat.S_IMODE(path.stat().st_mode))
    os.replace(temp, path)
    return True


def _split(text: str) -> list[tuple[str | None, str]]:
    """Cut text into segments: (managed heading, text) or (None, user text)."""
    segments: list[tuple[str | None, str]] = []
    key: str | None = None
    buffer: list[str] = []
    in_fence = False
    for line in re.findall(r"[^\n]*\n|[^\n]+$", text):
        bare = line.rstrip("\r\n")
        if _FENCE.match(bare):
            in_fence = not in_fence
        if not in_fence and _HEADING.match(bare):
            heading = bare.rstrip()
            new_key = heading if heading in SECTION_QUOTAS else None
            if new_key is not None or key is not None:
                if buffer:
                    segments.append((key, "".join(buffer)))
                key, buffer = new_key, []
        buffer.append(line)
    if buffer:
        segments.append((key, "".join(buffer)))
    return segments


def _cap(text: str, quota: int, newline: str) -> str:
    lines = text.splitlines()[:quota]
    return newline.join(lines) + newline


def _last_managed_line(parts: list[tuple[bool, str]]) -> int:
    lines, last = 0, 0
    for is_managed, text in parts:
        lines += text.count("\n") + (0 if text.endswith("\n") else 1)
        if is_managed:
            last = lines
    return last


def _one_line(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= MAX_LINE_CHARS else flat[: MAX_LINE_CHARS - 1] + "…"
