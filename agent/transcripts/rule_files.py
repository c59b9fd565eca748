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
    line: int | None = None  # the 1-based line of the file it starts on

    def as_json(self) -> dict[str, str | int | None]:
        return {"kind": self.kind, "category": self.category, "content": self.content, "path": self.path,
                "tool": self.tool, "line": self.line}


def batches(items: list[ImportItem], size: int) -> list[list[ImportItem]]:
    """The items in requests of at most `size`, never splitting one file's items over two requests (the
    server retires a file's rules that its request does not hold): a larger file is a request alone."""
    files: list[list[ImportItem]] = []
    for item in items:
        if files and files[-1][-1].path == item.path:
            files[-1].append(item)
        else:
            files.append([item])
    out: list[list[ImportItem]] = []
    for file in files:
        if out and len(out[-1]) + len(file) <= size:
            out[-1].extend(file)
        else:
            out.append(list(file))
    return out


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
        for item_kind, content, line in parsed:
            category = {"rule": "project_rule", "memory": "guideline"}[item_kind]
            if kind == "bank":
                category = "project_context"
            key = (category, content.casefold())
            if key not in seen:
                seen.add(key)
                items.append(ImportItem(item_kind, category, content, relative, tool, line))
    return items


def _lines(text: str) -> list[tuple[int, str]]:
    """The text's lines (with their 1-based numbers) without front matter and fenced code blocks."""
    lines = list(enumerate(text.splitlines(), 1))
    if lines and lines[0][1].strip() == "---" and "---" in (ln.strip() for _, ln in lines[1:]):
        lines = lines[[ln.strip() for _, ln in lines[1:]].index("---") + 2:]
    kept: list[tuple[int, str]] = []
    fenced = False
    for number, line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            kept.append((number, line))
    return kept


def _flat(text: str) -> str:
    return " ".join(text.split())[:MAX_ITEM_CHARS]


def rule_items(text: str) -> list[tuple[str, str, int]]:
    """("rule", item, line) per list item and ("memory", paragraph, line) per other paragraph; no
    headings. `line`: where it starts (1-based)."""
    out: list[tuple[str, str, int]] = []
    current: list[str] = []
    current_kind, start = "", 0

    def flush() -> None:
        content = _flat(" ".join(current))
        if len(content) >= MIN_ITEM_CHARS:
            out.append((current_kind, content, start))
        current.clear()

    for number, line in [*_lines(text), (0, "")]:
        bullet = _BULLET.match(line)
        if bullet or not line.strip() or _HEADING.match(line):
            flush()
            if bullet:
                current_kind, start = "rule", number
                current.append(bullet.group(1))
            continue
        if not current:
            current_kind, start = "memory", number
        current.append(line.strip())  # a continuation of the item or paragraph
    return out


def bank_items(text: str, stem: str) -> list[tuple[str, str, int]]:
    """One ("memory", "<file> / <heading>: text", line) per section of a memory-bank file (`line`: its
    heading's, or its first line's when it has none)."""
    out: list[tuple[str, str, int]] = []
    heading, body, start = "", [], 1  # type: tuple[str, list[str], int]
    for number, line in [*_lines(text), (0, "# end")]:
        match = _HEADING.match(line)
        if match:
            content = _flat(" ".join(body))
            if len(content) >= MIN_ITEM_CHARS:
                out.append(("memory", f"{stem}{' / ' + heading if heading else ''}: {content}", start))
            heading, body, start = match.group(1), [], number
        elif line.strip():
            if not body and not heading:
                start = number
            body.append(line.strip())
    return out
