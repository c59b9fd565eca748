"""What the prompt hook would inject for a prompt: the console's preview.

The hook's own request (the project's 3 best matches, its namespaces' 2 and `_global`'s 2, hybrid,
with the graph memory's fast block) rendered by the hook's own renderer
(`chalicelib/contracts/prompt_context`), so the text matches `itachi context --prompt` to the
character, token estimate included. Like that command it shows what a fresh session would get
(the hook skips memories a session was already given). Unlike the hook, a preview never queues
the prompt for the graph to learn from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chalicelib.contracts.prompt_context import (
    GLOBAL_LIMIT,
    MAX_QUERY_CHARS,
    MIN_PROMPT_CHARS,
    NAMESPACE_LIMIT,
    PROJECT_LIMIT,
    STALE_AFTER_DAYS,
    search_context,
    tokens,
)
from chalicelib.memory.domain.memory_model import SearchResult

SearchEach = Callable[..., SearchResult]  # MemoryService.search_each
GraphFast = Callable[[str, str], str]  # (project, prompt) -> the graph block's text


@dataclass(frozen=True)
class Preview:
    text: str  # exactly what the hook would print as additionalContext ('' for nothing)
    memories: list[dict[str, Any]] = field(default_factory=list)  # the matches, as the hook gets them
    graph: str = ""
    degraded: str | None = None  # why the search ran in another mode (e.g. the embedder was slow)
    skipped: str | None = None  # why nothing was searched

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def tokens(self) -> int:
        return tokens(self.text)


class PromptPreview:
    def __init__(self, search_each: SearchEach, graph_fast: GraphFast | None = None,
                 stale_after: int = STALE_AFTER_DAYS) -> None:
        self._search_each = search_each
        self._graph_fast = graph_fast
        self._stale_after = stale_after

    def preview(self, prompt: str, project: str) -> Preview:
        prompt = prompt.strip()
        if len(prompt) < MIN_PROMPT_CHARS:
            return Preview("", skipped=f"prompts under {MIN_PROMPT_CHARS} characters are not searched")
        query = prompt[:MAX_QUERY_CHARS]
        found = self._search_each(query, project, project_limit=PROJECT_LIMIT, global_limit=GLOBAL_LIMIT,
                                  namespace_limit=NAMESPACE_LIMIT, mode="hybrid")
        memories = [{"id": h.id, "project": h.project, "category": h.category, "content": h.content,
                     "summary": h.summary, "score": h.score, "source": h.source,
                     "created_at": h.created_at.isoformat(),
                     "confirmed_at": h.confirmed_at.isoformat() if h.confirmed_at else None}
                    for h in found.hits]
        graph = self._graph(query, project)
        answer = {"results": memories, "graph": {"text": graph} if graph else None}
        text = search_context(answer, project, stale_after=self._stale_after)
        return Preview(text, memories, graph, found.degraded)

    def _graph(self, query: str, project: str) -> str:
        if self._graph_fast is None:
            return ""
        try:
            return self._graph_fast(project, query)
        except Exception:  # as the search route: the memories still go out without the graph's block
            return ""
