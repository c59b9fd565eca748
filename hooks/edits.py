"""Describe the file edits in a PostToolUse payload: Claude's Write/Edit/MultiEdit, Codex's
apply_patch and Gemini's write_file/replace. Pure functions over the payload."""

from __future__ import annotations

import re
from pathlib import PurePath, PurePosixPath, PureWindowsPath
from typing import Any, NamedTuple

from hooks.languages import language_for

MAX_DIFF_CHARS = 4000
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_EXIT_CODE = re.compile(r"^Exit code: (-?\d+)", re.MULTILINE)


class FileEdit(NamedTuple):
    """One file touched by one tool call."""

    file: str
    lines_added: int
    lines_removed: int
    language: str
    summary: str
    diff: str


def edits_from_payload(payload: dict[str, Any]) -> list[FileEdit]:
    """Return the edits a tool call made (empty for tools that do not edit files)."""
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    response = payload.get("tool_response")
    cwd = str(payload.get("cwd") or "")
    patch = tool_input.get("command") or tool_input.get("patch") or tool_input.get("input")
    if isinstance(patch, list):
        patch = "\n".join(str(part) for part in patch)
    if isinstance(patch, str) and "*** Begin Patch" in patch:
        return _from_apply_patch(patch, cwd)
    path = str(tool_input.get("file_path") or tool_input.get("path") or "")
    if not path:
        return []
    hunks = response.get("structuredPatch") if isinstance(response, dict) else None
    if isinstance(hunks, list) and hunks:
        added, removed, diff = _from_hunks(hunks)
        verb = "Edited"
    elif "content" in tool_input:
        lines = str(tool_input.get("content") or "").splitlines()
        added, removed, verb = len(lines), 0, "Wrote"
        diff = "\n".join("+" + line for line in lines)
    else:
        old, new = _old_new(tool_input)
        added, removed, verb = len(new), len(old), "Edited"
        diff = "\n".join(["-" + line for line in old] + ["+" + line for line in new])
    return [_edit(relative_path(path, cwd), added, removed, verb, diff)]


def failure_of(payload: dict[str, Any]) -> str | None:
    """Return the error a tool call reported, or None when it succeeded."""
    if payload.get("hook_event_name") == "PostToolUseFailure":
        return _short(payload.get("error") or "tool failed")
    response = payload.get("tool_response")
    if isinstance(response, dict):
        if response.get("error"):
            return _short(response["error"])
        if response.get("is_error") or response.get("isError") or response.get("success") is False:
            return _short(response.get("message") or response.get("content") or "tool failed")
    if isinstance(response, str):
        code = _EXIT_CODE.search(response)
        if code and code.group(1) != "0":
            return _short(response)
        if response.lstrip().lower().startswith(("error", "<tool_use_error>")):
            return _short(response)
    return None


def _from_hunks(hunks: list[Any]) -> tuple[int, int, str]:
    added = removed = 0
    parts: list[str] = []
    for hunk in hunks:
        if not isinstance(hunk, dict):
            continue
        lines = [str(line) for line in hunk.get("lines") or []]
        added += sum(1 for line in lines if line.startswith("+"))
        removed += sum(1 for line in lines if line.startswith("-"))
        header = (f"@@ -{hunk.get('oldStart')},{hunk.get('oldLines')} "
                  f"+{hunk.get('newStart')},{hunk.get('newLines')} @@")
        parts.append("\n".join([header, *lines]))
    return added, removed, "\n".join(parts)


def _from_apply_patch(patch: str, cwd: str) -> list[FileEdit]:
    edits: list[FileEdit] = []
    current: list[Any] | None = None  # [action, path, added, removed, lines]
    for line in [*patch.splitlines(), "*** End Patch"]:
        match = _PATCH_FILE.match(line)
        if match or line.startswith("*** End Patch"):
            if current is not None:
                verb = {"Add": "Created", "Delete": "Deleted"}.get(current[0], "Edited")
                diff = "\n".join(current[4])
                edits.append(_edit(relative_path(current[1], cwd), current[2], current[3], verb, diff))
            current = [match.group(1), match.group(2).strip(), 0, 0, []] if match else None
        elif current is not None and not line.startswith("*** "):
            current[2] += line.startswith("+")
            current[3] += line.startswith("-")
            current[4].append(line)
    return edits


def _edit(path: str, added: int, removed: int, verb: str, diff: str) -> FileEdit:
    first_added = next((ln[1:].strip() for ln in diff.splitlines()
                        if ln.startswith("+") and ln[1:].strip()), "")
    summary = f"{verb} {path} (+{added}/-{removed} lines)"
    if first_added:
        summary += f": {_short(first_added, 100)}"
    return FileEdit(path, added, removed, language_for(path), summary, diff[:MAX_DIFF_CHARS])


def _old_new(tool_input: dict[str, Any]) -> tuple[list[str], list[str]]:
    listed = tool_input.get("edits")
    pairs: list[Any] = listed if isinstance(listed, list) else [tool_input]
    old: list[str] = []
    new: list[str] = []
    for pair in pairs:
        if isinstance(pair, dict):
            old += str(pair.get("old_string") or "").splitlines()
            new += str(pair.get("new_string") or "").splitlines()
    return old, new


def relative_path(path: str, cwd: str) -> str:
    """path relative to cwd (POSIX separators) when inside it, else as given."""
    flavour: type[PurePath] = PureWindowsPath if re.match(r"^[A-Za-z]:[\\/]", path) else PurePosixPath
    target, base = flavour(path), flavour(cwd)
    if cwd and target.is_absolute():
        try:
            return target.relative_to(base).as_posix()
        except ValueError:
            return target.as_posix()
    return target.as_posix()


def _short(value: Any, limit: int = 500) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
