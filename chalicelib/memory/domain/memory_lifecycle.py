"""Memory lifecycle: a priority per memory, the phases it walks, and what never shrinks.

Priority (seed 003's weights) is in [0, 1], higher is kept longer:
  0.4 x difficulty + 0.3 x recency + 0.3 x frequency
- difficulty: the difficulty of the session that produced the memory (0.5 when unknown);
- recency: 1 / (1 + sessions of the project started since the memory was last used), counted
  in sessions, not days, so a project paused for a month does not forget;
- frequency: min(1, accesses / 10).

Phases: full (0) -> hint (1) -> abstract (2) -> archived (3). The original text goes to the
archive before the first reduction; an archived memory leaves search but stays readable by id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from chalicelib.memory.domain.session_metrics import difficulty as session_difficulty

DIFFICULTY_WEIGHT = 0.4
RECENCY_WEIGHT = 0.3
FREQUENCY_WEIGHT = 0.3
FREQUENCY_CAP = 10
UNKNOWN_DIFFICULTY = 0.5

PHASES: tuple[str, ...] = ("full", "hint", "abstract", "archived")
FULL, HINT, ABSTRACT, ARCHIVED = 0, 1, 2, 3

# Never reduced: what the user taught, and lessons the learning loop is sure of.
PROTECTED_CATEGORIES = frozenset({"project_rule", "instruction", "user_instruction"})
LESSON_CATEGORIES = frozenset({"task_lesson", "lesson"})
PROTECTED_LESSON_CONFIDENCE = 0.7
KEEP_TAG = "keep"


def phase_number(value: str | int) -> int:
    """A phase by name or number; ValueError if it is neither."""
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        number = int(value)
        if 0 <= number < len(PHASES):
            return number
        raise ValueError(f"phase must be 0-{len(PHASES) - 1}")
    if value in PHASES:
        return PHASES.index(value)
    raise ValueError(f"phase must be one of {', '.join(PHASES)}")


def phase_name(number: int) -> str:
    return PHASES[number]


@dataclass(frozen=True)
class UsageFacts:
    """What a memory's priority is computed from."""

    memory_id: str
    phase: int
    difficulty: float | None
    sessions_since_use: int
    access_count: int


def difficulty_of(tool_failures: int | None, tool_successes: int | None, compactions: int | None) -> float:
    """The producing session's difficulty (sessions' own formula); 0.5 without a session."""
    if tool_failures is None or tool_successes is None:
        return UNKNOWN_DIFFICULTY
    return session_difficulty(tool_failures, tool_successes, compactions or 0)


def priority(facts: UsageFacts) -> float:
    """Seed 003's priority in [0, 1]: difficulty, recency in sessions, frequency of use."""
    diff = UNKNOWN_DIFFICULTY if facts.difficulty is None else min(1.0, max(0.0, facts.difficulty))
    recency = 1.0 / (1.0 + max(0, facts.sessions_since_use))
    frequency = min(1.0, max(0, facts.access_count) / FREQUENCY_CAP)
    return round(DIFFICULTY_WEIGHT * diff + RECENCY_WEIGHT * recency + FREQUENCY_WEIGHT * frequency, 6)


def is_protected(category: str, confidence: float, tags: Iterable[str]) -> bool:
    """Rules, instructions, confident lessons and anything tagged `keep` never shrink."""
    if category in PROTECTED_CATEGORIES or KEEP_TAG in set(tags):
        return True
    return category in LESSON_CATEGORIES and confidence >= PROTECTED_LESSON_CONFIDENCE


def eviction_order(facts: Sequence[UsageFacts]) -> list[UsageFacts]:
    """Lowest priority first; ties broken by id so a rerun picks the same memories."""
    return sorted(facts, key=lambda f: (priority(f), f.memory_id))


@dataclass(frozen=True)
class Step:
    """One memory advanced by one phase; `text` is its new content (None: unchanged)."""

    memory_id: str
    from_phase: int
    text: str | None

    @property
    def to_phase(self) -> int:
        return self.from_phase + 1

    @property
    def archives(self) -> bool:
        """The first step writes the original text to the archive."""
        return self.from_phase == FULL


@dataclass(frozen=True)
class EvictionReport:
    run_key: str
    projects: int = 0
    advanced: int = 0
    by_phase: tuple[int, int, int] = (0, 0, 0)  # steps into hint, abstract, archived
    already_done: int = 0
    finished: bool = True  # False: the batch or time budget ran out; run again to go on
    seconds: float = 0.0

    def as_json(self) -> dict[str, object]:
        return {"run_key": self.run_key, "projects": self.projects, "advanced": self.advanced,
                "to_hint": self.by_phase[0], "to_abstract": self.by_phase[1],
                "to_archived": self.by_phase[2], "already_done": self.already_done,
                "finished": self.finished, "seconds": round(self.seconds, 3)}
