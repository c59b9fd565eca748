"""What recorded edits say about a project: hot files, files changed together, churn, and files
whose edits keep failing. Pure: the edit analyzer feeds it rows and stores the texts it returns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

HOT_LIMIT = 5
PAIR_LIMIT = 3
MIN_PAIR_SESSIONS = 3
MIN_FAILURES = 2
MAX_FILES_PER_SESSION = 30  # a sweeping session (a rename) says nothing about coupling


@dataclass(frozen=True)
class EditRow:
    session_id: str
    file: str
    lines_added: int
    lines_removed: int
    failed: bool


@dataclass(frozen=True)
class Pattern:
    kind: str  # hot_files | co_change | churn | failing
    text: str
    files: tuple[str, ...]


def analyze(edits: Sequence[EditRow]) -> list[Pattern]:
    """The project's patterns, most telling first (empty for no edits)."""
    ok = [e for e in edits if not e.failed]
    patterns: list[Pattern] = []
    hot = _top(Counter(e.file for e in ok))
    if hot:
        patterns.append(
            Pattern(
                "hot_files",
                "Hot files: " + ", ".join(f"{f} ({_edits(n)})" for f, n in hot),
                tuple(f for f, _ in hot),
            )
        )
    for (a, b), sessions in co_changes(ok):
        patterns.append(
            Pattern("co_change", f"Changed together: {a} and {b} (in {sessions} sessions)", (a, b))
        )
    churn = _churn(ok)
    if churn:
        patterns.append(
            Pattern(
                "churn",
                "Most churn: " + ", ".join(f"{f} (+{a}/-{r})" for f, a, r in churn),
                tuple(f for f, _, _ in churn),
            )
        )
    failing = [(f, n) for f, n in _top(Counter(e.file for e in edits if e.failed)) if n >= MIN_FAILURES]
    if failing:
        patterns.append(
            Pattern(
                "failing",
                "Edits keep failing on: "
                + ", ".join(f"{f} ({n} failed {'edit' if n == 1 else 'edits'})" for f, n in failing),
                tuple(f for f, _ in failing),
            )
        )
    return patterns


def co_changes(edits: Iterable[EditRow]) -> list[tuple[tuple[str, str], int]]:
    """File pairs edited in the same session, in at least MIN_PAIR_SESSIONS sessions."""
    by_session: dict[str, set[str]] = {}
    for e in edits:
        by_session.setdefault(e.session_id, set()).add(e.file)
    pairs: Counter[tuple[str, str]] = Counter()
    for files in by_session.values():
        if 1 < len(files) <= MAX_FILES_PER_SESSION:
            pairs.update(combinations(sorted(files), 2))
    ranked = sorted(((p, n) for p, n in pairs.items() if n >= MIN_PAIR_SESSIONS), key=lambda x: (-x[1], x[0]))
    return ranked[:PAIR_LIMIT]


def _top(counts: Counter[str]) -> list[tuple[str, int]]:
    """The most frequent files, ties by name: the same edits always give the same text."""
    return sorted(counts.items(), key=lambda fc: (-fc[1], fc[0]))[:HOT_LIMIT]


def _churn(edits: Iterable[EditRow]) -> list[tuple[str, int, int]]:
    added: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    for e in edits:
        added[e.file] += e.lines_added
        removed[e.file] += e.lines_removed
    ranked = sorted(added.keys() | removed.keys(), key=lambda f: (-(added[f] + removed[f]), f))
    return [(f, added[f], removed[f]) for f in ranked[:PAIR_LIMIT] if added[f] + removed[f] > 0]


def _edits(n: int) -> str:
    return f"{n} edit" if n == 1 else f"{n} edits"
