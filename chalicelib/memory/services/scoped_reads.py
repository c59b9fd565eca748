"""Memory reads narrowed to a subagent run's scope: search, recent memories and recall.

The scope itself comes from the run (`chalicelib/agents/services/memory_scope.py` finds it from the
run's task, never from the request); `chalicelib/memory/domain/memory_scope.py` holds the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from chalicelib.memory.domain.memory_model import Memory, SearchHit, SearchMode, SearchResult
from chalicelib.memory.domain.memory_scope import GLOBAL, MemoryScope

RECALL_WIDENING = 4  # recall asks for more, then keeps the scope's categories


class ScopedMemory(Protocol):
    def search_scopes(self, query: str, scopes: Sequence[tuple[tuple[str, ...], int]], *,
                      mode: SearchMode = "hybrid", tag: str | None = None, include_untrusted: bool = False,
                      categories: Sequence[str] | None = None) -> SearchResult: ...

    def recent(self, project: str | None = None, *, limit: int = 10, category: str | None = None,
               metadata: dict[str, Any] | None = None, include_untrusted: bool = False) -> list[Memory]: ...


class ScopedRecall(Protocol):
    def about_file(self, project: str, path: str, limit: int = 3) -> list[Memory]: ...
    def for_error(self, project: str, error: str, limit: int = 3) -> list[SearchHit]: ...


@dataclass(frozen=True)
class SearchAsk:
    """A search as the API received it (`per_scope`: the prompt hook's project and global limits)."""

    query: str
    project: str
    limit: int = 10
    per_scope: tuple[int, int] | None = None
    include_global: bool = True
    category: str | None = None
    mode: SearchMode = "hybrid"
    tag: str | None = None
    include_untrusted: bool = False


class ScopedReads:
    def __init__(self, memory: ScopedMemory, recall: ScopedRecall) -> None:
        self._memory, self._recall = memory, recall

    def search(self, scope: MemoryScope, ask: SearchAsk) -> SearchResult:
        categories = scope.categories_for(ask.category)
        if ask.project == GLOBAL:
            own: tuple[str, ...] = (GLOBAL,) if scope.reads_global else ()
            glob = False
        else:
            own = tuple(p for p in scope.projects_for(ask.project) if p)
            glob = scope.reads_global
        if ask.per_scope is not None:
            scopes = [(own, ask.per_scope[0]), ((GLOBAL,) if glob else (), ask.per_scope[1])]
        else:
            scopes = [(own + ((GLOBAL,) if glob and ask.include_global else ()), ask.limit)]
        scopes = [(projects, n) for projects, n in scopes if projects and n > 0]
        if not scopes or categories == ():
            return SearchResult([], ask.mode)
        return self._memory.search_scopes(ask.query, scopes, mode=ask.mode, tag=ask.tag,
                                          include_untrusted=ask.include_untrusted, categories=categories)

    def recent(self, scope: MemoryScope, project: str | None, *, limit: int, category: str | None,
               metadata: dict[str, Any] | None, include_untrusted: bool) -> list[Memory]:
        """Newest first over the scope's projects and categories (one read per pair: scopes are small)."""
        categories = scope.categories_for(category)
        found: dict[str, Memory] = {}
        for p in scope.projects_for(project):
            for c in categories if categories is not None else (None,):
                for m in self._memory.recent(p, limit=limit, category=c, metadata=metadata,
                                             include_untrusted=include_untrusted):
                    found[m.id] = m
        newest = sorted(found.values(), key=lambda m: m.created_at.timestamp() if m.created_at else 0.0,
                        reverse=True)
        return newest[:limit]

    def about_file(self, scope: MemoryScope, project: str, path: str, limit: int) -> list[Memory]:
        if not scope.allows_project(project):
            return []
        found = self._recall.about_file(project, path, limit * RECALL_WIDENING)
        return [m for m in found if scope.allows_category(m.category)][:limit]

    def for_error(self, scope: MemoryScope, project: str, error: str, limit: int) -> list[SearchHit]:
        if not scope.allows_project(project):
            return []
        found = self._recall.for_error(project, error, limit * RECALL_WIDENING)
        return [h for h in found if scope.allows_category(h.category)][:limit]
