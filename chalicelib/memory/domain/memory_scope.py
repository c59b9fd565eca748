"""What a subagent run may read of memory: its profile's projects and categories.

A run's hooks name the run (the `X-Itachi-Agent-Run` header); the server looks the scope up
from the run's own engine options and narrows every read to it. The request can only narrow
further: a project outside the scope is never read (the scope's own projects are read
instead), a category outside it answers nothing. An empty list means no limit on that side.
`_global` is read only when the scope has no project list or names `_global`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

GLOBAL = "_global"
HEADER = "x-itachi-agent-run"  # what the hooks send (ITACHI_AGENT_RUN_ID, set by the agent)
# The briefing's fields that are memories of these categories (the rest: sessions, files, tasks).
BRIEFING_CATEGORIES: dict[str, tuple[str, ...]] = {
    "active_patterns": ("pattern", "pattern_observation"), "recent_decisions": ("decision",),
    "style": ("style",), "repo_expertise": ("repo_expertise",), "session_summaries": ("session_summary",),
}
RULE_CATEGORY = "project_rule"


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    return tuple(str(v) for v in value if isinstance(v, str) and v)


@dataclass(frozen=True)
class MemoryScope:
    projects: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> MemoryScope:
        """The scope in a run's engine options (`memory_scope`); none there: no limit."""
        scope = (options or {}).get("memory_scope")
        if not isinstance(scope, Mapping):
            return cls()
        return cls(_names(scope.get("projects")), _names(scope.get("categories")))

    @property
    def unlimited(self) -> bool:
        return not self.projects and not self.categories

    def allows_project(self, project: str) -> bool:
        return not self.projects or project in self.projects

    def allows_category(self, category: str) -> bool:
        return not self.categories or category in self.categories

    @property
    def reads_global(self) -> bool:
        return not self.projects or GLOBAL in self.projects

    def projects_for(self, requested: str | None) -> tuple[str | None, ...]:
        """The projects a read of `requested` (None: every project) looks at, `_global` aside."""
        if not self.projects:
            return (requested,)
        if requested is not None and requested in self.projects:
            return (requested,)
        return tuple(p for p in self.projects if p != GLOBAL)

    def categories_for(self, requested: str | None) -> tuple[str, ...] | None:
        """The categories a read asking for `requested` keeps (None: any; empty: nothing)."""
        if requested is not None:
            return (requested,) if self.allows_category(requested) else ()
        return self.categories or None

    def briefing(self, project: str, briefing: dict[str, Any]) -> dict[str, Any]:
        """The briefing with what the scope may not read emptied."""
        if not self.allows_project(project):
            return {"project": project}
        narrowed = dict(briefing)
        for key, categories in BRIEFING_CATEGORIES.items():
            if key in narrowed and not any(self.allows_category(c) for c in categories):
                narrowed[key] = None if isinstance(narrowed[key], str) or narrowed[key] is None else []
        return narrowed

    def rules(self, project: str, rules: list[Any]) -> list[Any]:
        """A project's rules if the scope reads its rules, else none."""
        return rules if self.allows_project(project) and self.allows_category(RULE_CATEGORY) else []
