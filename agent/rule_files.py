"""Other tools' rule and memory files in a repository, read into items Itachi can store.

Claude Code (`CLAUDE.md`, `.claude/CLAUDE.md`), the AGENTS.md convention, Cursor
(`.cursorrules`, `.cursor/rules/*.mdc`), GitHub Copilot (`.github/copilot-instructions.md`,
`.github/instructions/*.instructions.md`), Cline (`.clinerules` as a file or a folder, and the
memory bank `memory-bank/*.md`) and Windsurf (`.windsurfrules`, `.windsurf/rules/*.md`).

A rule file's list items become rules; its other paragraphs become `guideline` memories. A
memory-bank file becomes one `project_context` memory per section. Front matter and code
blocks are left out; items are whitespace-normalised and deduplicated. Pure: reads files only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MAX_ITEM_CHARS = 4_000
MIN_ITEM_CHARS = 8
MAX_FILE_BYTES = 500_000
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(.*?)\s*#*\s*$")

# (glob relative to the repository, tool, kind): "rules" files or a "memory bank".
SOURCES: tuple[tuple[str, str, str], ...] = (
    ("CLAUDE.md", "claude", "rules"),
    (".claude/CLAUDE.md", "claude", "rules"),
    ("AGENTS.md", "agents", "rules"),
    (".cursorrules", "cursor", "rules"),
    (".cursor/rules/*.mdc", "cursor", "rules"),
    (".cursor/rules/*.md", "cursor", "rules"),
    (".github/copilot-instructions.md", "copilot", "rules"),
    (".github/instructions/*.instructions.md", "copilot", "rules"),
    (".clinerules", "cline", "rules"),
    (".clinerules/*.md", "cline", "rules"),
    ("memory-bank/*.md", "cline", "bank"),
    (".windsurfrules", "windsurf", "rules"),
    (".windsurf/rules/*.md", "windsurf", "rules"),
)


@dataclass(frozen=True)
class ImportItem:
    kind: str  # "rule" or "memory"
    category: str
    content: str
    path: str  # relative to the repository
    tool: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "category": self.category, "content": self.content, "path": self.path,
                "tool": self.tool}


def rule_files(root: Path) -> list[tuple[Path, str, str]]:
    """(file, tool, kind) for every known file present under `root`, in SOURCES order."""
    found: list[tuple[Path, str, str]] = []
    for pattern, tool, kind in SOURCES:
        for path in sorted(root.glob(pattern)):
            if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
                found.append((path, tool, kind))
    return found


def read_items(root: Path) -> list[ImportItem]:
    """Every rule and memory the known files in `root` hold, each once, in file order."""
    items: list[ImportItem] = []
    seen: set[tuple[str, str]] = set()
    for path, tool, kind in rule_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        relative = path.relative_to(root).as_posix()
        parsed = bank_items(text, path.stem) if kind == "bank" else rule_items(text)
        for item_kind, content in parsed:
            category = {"rule": "project_rule", "memory": "guideline"}[item_kind]
            if kind == "bank":
                category = "project_context"
            key = (category, content.casefold())
            if key not in seen:
                seen.add(key)
                items.append(ImportItem(item_kind, category, content, relative, tool))
    return items


def _lines(text: str) -> list[str]:
    """The text's lines without front matter and fenced code blocks."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---" and "---" in (ln.strip() for ln in lines[1:]):
        lines = lines[[ln.strip() for ln in lines[1:]].index("---") + 2:]
    kept: list[str] = []
    fenced = False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    return kept


def _flat(text: str) -> str:
    return " ".join(text.split())[:MAX_ITEM_CHARS]


def rule_items(text: str) -> list[tuple[str, str]]:
    """("rule", item) per list item and ("memory", paragraph) per other paragraph; no headings."""
    out: list[tuple[str, str]] = []
    current: list[str] = []
    current_kind = ""

    def flush() -> None:
        content = _flat(" ".join(current))
        if len(content) >= MIN_ITEM_CHARS:
            out.append((current_kind, content))
        current.clear()

    for line in [*_lines(text), ""]:
        bullet = _BULLET.match(line)
        if bullet or not line.strip() or _HEADING.match(line):
            flush()
            if bullet:
                current_kind = "rule"
                current.append(bullet.group(1))
            continue
        if not current:
            current_kind = "memory"
        current.append(line.strip())  # a continuation of the item or paragraph
    return out


def bank_items(text: str, stem: str) -> list[tuple[str, str]]:
    """One ("memory", "<file> / <heading>: text") per section of a memory-bank file."""
    out: list[tuple[str, str]] = []
    heading, body = "", []  # type: tuple[str, list[str]]
    for line in [*_lines(text), "# end"]:
        match = _HEADING.match(line)
        if match:
            content = _flat(" ".join(body))
            if len(content) >= MIN_ITEM_CHARS:
                out.append(("memory", f"{stem}{' / ' + heading if heading else ''}: {content}"))
            heading, body = match.group(1), []
        elif line.strip():
            body.append(line.strip())
    return out
