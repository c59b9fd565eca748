"""Claude's memory tool over memories: paths under /memories, and the tool's own answers.

A memory file is a memory whose metadata holds its path; its content is the path on the first
line, then the file's text (so two files with the same text stay two memories, and a search
shows which file a hit comes from). Directories are not stored: a directory exists while a file
lies under it, and `/memories` always does. The answers and error texts are those the memory
tool documents (Anthropic's `memory_20250818`), so a client hands them to the model unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound

ROOT = "/memories"
MAX_PATH_CHARS = 500
MAX_SEGMENT_CHARS = 255
NUMBER_WIDTH = 6
SNIPPET_CONTEXT = 2  # lines shown around a replacement
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def memory_path(raw: str, field: str = "path") -> str:
    """The canonical form of a path under /memories; InvalidInput (400) for anything that could
    leave it: `..` or `.` segments, another root, backslashes, NUL and control characters, and
    the same in percent-encoded form (`%2e%2e`, `%2f`, `%5c`, `%00`)."""
    decoded = raw
    for _ in range(3):  # %252e%252e decodes twice
        decoded = unquote(decoded)
    for form in (raw, decoded):
        if "\\" in form:
            raise InvalidInput(f"{field}: backslashes are not allowed in a memory path", field=field)
        if _CONTROL.search(form):
            raise InvalidInput(f"{field}: control characters (NUL included) are not allowed", field=field)
    if decoded.count("/") != raw.count("/"):
        raise InvalidInput(f"{field}: percent-encoded path separators are not allowed", field=field)
    path = raw.rstrip("/") if raw not in ("/", "") else raw
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise InvalidInput(f"{field}: the path must be {ROOT} or lie under it, got {raw!r}", field=field)
    segments = path[len(ROOT):].split("/")[1:]
    if any(s in ("", ".", "..") for s in segments) or _dots(decoded):
        raise InvalidInput(f"{field}: '..', '.' and empty segments are not allowed (path traversal)",
                           field=field)
    if len(path) > MAX_PATH_CHARS or any(len(s) > MAX_SEGMENT_CHARS for s in segments):
        raise InvalidInput(f"{field}: at most {MAX_PATH_CHARS} characters, {MAX_SEGMENT_CHARS} a segment",
                           field=field)
    return path


def _dots(path: str) -> bool:
    return any(s in (".", "..") for s in path.split("/"))


def file_content(path: str, text: str) -> str:
    """The memory content of a file: its path, then its text."""
    return f"{path}\n{text}"


def file_text(content: str) -> str:
    """The text of a file from its memory content."""
    return content.partition("\n")[2]


def under(path: str, directory: str) -> bool:
    return path.startswith(directory.rstrip("/") + "/")


def human_size(size: int) -> str:
    """Sizes as the tool lists them: 512B, 1.5K, 4.0M."""
    if size < 1024:
        return f"{size}B"
    for unit, scale in (("K", 1024), ("M", 1024**2)):
        if size < scale * 1024 or unit == "M":
            return f"{size / scale:.1f}{unit}"
    raise AssertionError("unreachable")


def view_directory(path: str, files: Mapping[str, int]) -> str:
    """The listing of a directory, two levels deep: each entry's size (a directory: its files'
    total) and path; names starting with a dot are hidden."""
    depth = path.count("/")
    entries: dict[str, int] = {}
    for file, size in files.items():
        if not under(file, path) or any(s.startswith(".") for s in file.split("/")[depth + 1:]):
            continue
        parts = file.split("/")
        for level in (1, 2):
            if len(parts) > depth + level:
                entry = "/".join(parts[:depth + level + 1]) + ("/" if len(parts) > depth + level + 1 else "")
                entries[entry] = entries.get(entry, 0) + size
    total = sum(size for file, size in files.items() if under(file, path))
    lines = [f"{human_size(total)}\t{path}"] + [f"{human_size(size)}\t{entry}"
                                                for entry, size in sorted(entries.items())]
    return (f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items "
            "and node_modules:\n" + "\n".join(lines))


def numbered(lines: Sequence[str], first: int) -> str:
    return "\n".join(f"{n:>{NUMBER_WIDTH}}\t{line}" for n, line in enumerate(lines, start=first))


def view_file(path: str, text: str, view_range: Sequence[int] | None) -> str:
    """The file with its lines numbered from 1 (or lines start..end of it; end -1: to the end)."""
    lines = text.split("\n")
    first, last = 1, len(lines)
    if view_range is not None:
        first, last = _checked_range(view_range, len(lines))
    return f"Here's the content of {path} with line numbers:\n" + numbered(lines[first - 1:last], first)


def _checked_range(view_range: Sequence[int], count: int) -> tuple[int, int]:
    if len(view_range) != 2:
        raise InvalidInput("Invalid `view_range`: it should be a list of two integers [start, end]",
                           field="view_range")
    start, end = view_range
    if not 1 <= start <= count:
        raise InvalidInput(f"Invalid `view_range`: {list(view_range)}. Its first element `{start}` should be "
                           f"within the range of lines of the file: [1, {count}]", field="view_range")
    if end != -1 and not start <= end <= count:
        raise InvalidInput(f"Invalid `view_range`: {list(view_range)}. Its second element `{end}` should be "
                           f"-1 or within [{start}, {count}]", field="view_range")
    return start, count if end == -1 else end


def replace(path: str, text: str, old: str, new: str) -> tuple[str, str]:
    """(new text, answer) for replacing the one occurrence of `old`; InvalidInput when `old`
    occurs nowhere or more than once."""
    count = text.count(old) if old else 0
    if count == 0:
        raise InvalidInput(f"No replacement was performed, old_str `{old}` did not appear verbatim in "
                           f"{path}.", field="old_str")
    if count > 1:
        starts = [m.start() for m in re.finditer(re.escape(old), text)]
        at = ", ".join(str(text.count("\n", 0, s) + 1) for s in starts)
        raise InvalidInput(f"No replacement was performed. Multiple occurrences of old_str `{old}` in lines: "
                           f"{at}. Please ensure it is unique", field="old_str")
    changed = text.count("\n", 0, text.index(old))
    result = text.replace(old, new, 1)
    lines = result.split("\n")
    first = max(0, changed - SNIPPET_CONTEXT)
    last = min(len(lines), changed + new.count("\n") + SNIPPET_CONTEXT + 1)
    return result, ("The memory file has been edited. Here is the snippet showing the change (with line "
                    "numbers):\n" + numbered(lines[first:last], first + 1))


def insert(path: str, text: str, line: int, inserted: str) -> tuple[str, str]:
    """(new text, answer) for inserting `inserted` after line `line` (0: at the top)."""
    lines = text.split("\n") if text else []
    if not 0 <= line <= len(lines):
        raise InvalidInput(f"Error: Invalid `insert_line` parameter: {line}. It should be within the range "
                           f"of lines of the file: [0, {len(lines)}]", field="insert_line")
    new_lines = inserted.removesuffix("\n").split("\n")
    return "\n".join(lines[:line] + new_lines + lines[line:]), f"The file {path} has been edited."


def missing(path: str, *, prefix: str = "Error: ", hint: bool = False, field: str = "path") -> NotFound:
    """The tool's answer for a path that does not exist (`view` and `str_replace` add the hint)."""
    suffix = ". Please provide a valid path." if hint else ""
    return NotFound(f"{prefix}The path {path} does not exist{suffix}", field=field)


def exists(path: str) -> Conflict:
    return Conflict(f"Error: File {path} already exists", field="path")


def destination_exists(path: str) -> Conflict:
    return Conflict(f"Error: The destination {path} already exists", field="new_path")


@dataclass(frozen=True)
class ToolCommand:
    """One memory tool call, its fields as the tool names them (each command uses some)."""

    command: str
    path: str = ROOT
    view_range: tuple[int, ...] | None = None
    file_text: str = ""
    old_str: str = ""
    new_str: str = ""
    insert_line: int = 0
    insert_text: str = ""
    old_path: str = ""
    new_path: str = ""
