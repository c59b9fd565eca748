"""A project's coding style read from the lines its edits added: naming, formatting, test habits
and the libraries it imports. Pure; the style extractor renders it as the one "Style" line."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MIN_LINES = 5
_IDENT = re.compile(r"\b(?:def|function|const|let|var|fn|func)\s+([A-Za-z_][A-Za-z0-9_]*)")
_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]")
_IMPORT = re.compile(r"^\s*(?:from\s+([A-Za-z_][\w]*)[\w.]*\s+import|import\s+([A-Za-z_][\w]*))")
_REQUIRE = re.compile(r"""(?:require\(|from\s+)['"]([@\w][\w\-/]*)['"]""")
_TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*$|[^/]*_test\.\w+$|[^/]*\.(test|spec)\.\w+$)")
_STDLIB = frozenset(
    {
        "os",
        "sys",
        "re",
        "json",
        "typing",
        "collections",
        "dataclasses",
        "datetime",
        "pathlib",
        "itertools",
        "functools",
        "time",
        "math",
        "abc",
        "enum",
        "logging",
        "uuid",
        "__future__",
        "subprocess",
        "threading",
        "asyncio",
        "contextlib",
        "hashlib",
        "random",
        "string",
    }
)


@dataclass(frozen=True)
class EditText:
    file: str
    language: str | None
    diff: str | None


@dataclass(frozen=True)
class Style:
    language: str
    naming: str
    indent: str
    quotes: str
    test_habit: str
    libraries: tuple[str, ...]

    def line(self) -> str:
        parts = [self.language, self.naming, self.indent]
        if self.quotes:
            parts.append(self.quotes)
        parts.append(self.test_habit)
        if self.libraries:
            parts.append("prefers " + ", ".join(self.libraries))
        return "; ".join(p for p in parts if p)


def added_lines(diff: str | None) -> list[str]:
    """The lines a diff (unified, or plain new content) adds."""
    if not diff:
        return []
    lines = diff.splitlines()
    if any(line.startswith(("+", "-", "@@")) for line in lines[:5]):
        return [line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")]
    return lines


def profile(edits: Sequence[EditText]) -> Style | None:
    """The style of these edits, or None when they hold too little code to tell."""
    lines = [(e, line) for e in edits for line in added_lines(e.diff) if line.strip()]
    if len(lines) < MIN_LINES:
        return None
    languages = Counter(e.language for e in edits if e.language)
    language = languages.most_common(1)[0][0] if languages else "code"
    return Style(
        language,
        _naming(line for _, line in lines),
        _indent(line for _, line in lines),
        _quotes(line for _, line in lines),
        _test_habit(edits),
        _libraries((line for _, line in lines), _local_modules(edits)),
    )


def _naming(lines: Iterable[str]) -> str:
    names = [m.group(1) for line in lines for m in (_IDENT.search(line), _ASSIGN.match(line)) if m]
    names = [n for n in names if n.lower() != n.upper() and not n.isupper() and len(n) > 2]
    snake = sum(1 for n in names if "_" in n.strip("_") and n == n.lower())
    camel = sum(1 for n in names if re.search(r"[a-z][A-Z]", n))
    if not snake and not camel:
        return "short lower-case names" if names else ""
    return "snake_case names" if snake >= camel else "camelCase names"


def _indent(lines: Iterable[str]) -> str:
    widths: Counter[str] = Counter()
    for line in lines:
        lead = line[: len(line) - len(line.lstrip())]
        if lead.startswith("\t"):
            widths["tabs"] += 1
        elif lead:
            widths["2-space" if len(lead) % 4 else "4-space"] += 1
    if not widths:
        return ""
    return f"{widths.most_common(1)[0][0]} indent"


def _quotes(lines: Iterable[str]) -> str:
    text = "\n".join(lines)
    double, single = text.count('"'), text.count("'")
    if double + single < 4:
        return ""
    return "double quotes" if double >= single else "single quotes"


def _test_habit(edits: Sequence[EditText]) -> str:
    tests = sum(1 for e in edits if _TEST_FILE.search(e.file))
    share = tests / len(edits) if edits else 0.0
    if share >= 0.25:
        return f"tests change with the code ({share:.0%} of edits touch tests)"
    if tests:
        return f"tests occasionally ({share:.0%} of edits)"
    return "no test edits seen"


def _local_modules(edits: Sequence[EditText]) -> frozenset[str]:
    """The project's own top-level packages and modules: importing them is no library preference."""
    names = set()
    for e in edits:
        parts = e.file.strip("/").split("/")
        names.add(parts[0].split(".")[0])
        names.add(parts[-1].split(".")[0])
    return frozenset(names)


def _libraries(lines: Iterable[str], local: frozenset[str]) -> tuple[str, ...]:
    found: Counter[str] = Counter()
    for line in lines:
        match = _IMPORT.match(line)
        name = (match.group(1) or match.group(2)) if match else None
        if name is None:
            required = _REQUIRE.search(line)
            name = required.group(1) if required else None
        if name and name not in _STDLIB and name not in local and not name.startswith((".", "_")):
            found[name] += 1
    return tuple(n for n, _ in sorted(found.items(), key=lambda nc: (-nc[1], nc[0]))[:5])
