"""Claude Code's auto-memory file of a project (`~/.claude/projects/<cwd>/memory/MEMORY.md`) as
import items: each note a `project_context` memory, the sections Itachi writes there left out."""

from __future__ import annotations

import re
from pathlib import Path

from agent.transcripts.rule_files import MAX_FILE_BYTES, ImportItem, rule_items

TOOL = "claude-memory"
_SECTION = re.compile(r"^#{1,2}[ \t]")


def memory_md_path(cwd: str) -> Path:
    from hooks.memory_md import claude_config_dir, memory_md_path

    return memory_md_path(cwd, claude_config_dir())


def memory_md_items(cwd: str) -> list[ImportItem]:
    path = memory_md_path(cwd)
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return []
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    notes = dict.fromkeys(content for _, content, _ in rule_items(users_part(text)))
    return [ImportItem("memory", "project_context", note, "MEMORY.md", TOOL) for note in notes]


def users_part(text: str) -> str:
    """The file without the sections Itachi's SessionStart hook keeps there."""
    from hooks.memory_md import SECTION_QUOTAS

    kept: list[str] = []
    managed = False
    for line in text.splitlines():
        if _SECTION.match(line):
            managed = line.strip() in SECTION_QUOTAS
        if not managed:
            kept.append(line)
    return "\n".join(kept)
