"""The one prompt-context pipeline.

For a prompt in a project it finds the memories (the project's best, its namespaces', `_global`'s:
one query embedding for all) and, beside them, the graph memory's fast block without the rules the
memories already show; with `learn`, it queues the prompt for the graph to learn from after the
answer has gone. The search route that serves the prompt hook (so `itachi context` too) and the
console's preview both call it, and the preview renders the answer with the hook's own renderer
(`chalicelib/contracts/prompt_context`): what was injected and what the preview shows cannot differ.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

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
from chalicelib.kernel.after_response import after_response
from chalicelib.kernel.logging import log_failure
from chalicelib.memory.domain.memory_model import SearchMode, SearchResult
from chalicelib.memory.schemas import search_json


class GraphBlock(Protocol):
    @property
    def text(self) -> str: ...

    def without_rules(self, rule_ids: Collection[str]) -> GraphBlock: ...


class Memories(Protocol):
    def search_each(self, query: str, project: str, *, project_limit: int, global_limit: int,
                    category: str | None = None, mode: SearchMode = "hybrid", tag: str | None = None,
                    include_untrusted: bool = False, namespace_limit: int | None = None) -> SearchResult: ...

    def search(self, query: str, project: str, *, limit: int = 10, category: str | None = None,
               mode: SearchMode = "hybrid", include_global: bool = True, tag: str | None = None,
               include_untrusted: bool = False) -> SearchResult: ...


GraphFast = Callable[[str, str], GraphBlock]  # (project, prompt) -> the graph's fast block
Learn = Callable[[str, str], None]  # (project, prompt): queue it for the graph's store pipeline


@dataclass(frozen=True)
class ContextAsk:
    """A search as the API received it. `per_scope`: the prompt hook's (project, global) limits;
    `graph`: also the graph's block (and learning from the prompt, when `learn`)."""

    query: str
    project: str
    limit: int = 10
    per_scope: tuple[int, int] | None = None
    namespace_limit: int | None = None
    include_global: bool = True
    category: str | None = None
    mode: SearchMode = "hybrid"
    tag: str | None = None
    include_untrusted: bool = False
    graph: bool = False


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


class PromptContext:
    def __init__(self, memories: Memories, graph_fast: GraphFast | None = None, learn: Learn | None = None,
                 stale_after: int = STALE_AFTER_DAYS) -> None:
        self._memories, self._graph_fast, self._learn = memories, graph_fast, learn
        self._stale_after = stale_after
        self._pool: ThreadPoolExecutor | None = None

    def answer(self, ask: ContextAsk, *, learn: bool = True) -> dict[str, Any]:
        """The search route's JSON: `results`, `mode` (`degraded`), and with `graph` the graph's block.
        The graph's block is built beside the memory search (one query embedding serves both)."""
        side: list[Future[Any]] = []
        if ask.graph and self._graph_fast is not None:
            side.append(self._threads().submit(self._graph_block, ask.query, ask.project))
        if ask.graph and learn and self._learn is not None:
            queue = partial(self._learn_prompt, ask.query, ask.project)
            if not after_response(queue):  # no server runs it after the answer: send it beside it
                side.append(self._threads().submit(queue))
        answer = search_json(self._search(ask))
        if ask.graph:
            block = side[0].result() if side and self._graph_fast is not None else None
            # A rule among the memories found is not repeated in the graph's instructions.
            shown = [str(r.get("id")) for r in answer.get("results") or [] if isinstance(r, dict)]
            answer["graph"] = None if block is None else {"text": block.without_rules(shown).text}
        for pending in side:
            pending.result()
        return answer

    def preview(self, prompt: str, project: str) -> Preview:
        """What the prompt hook would inject for `prompt` in a fresh session (it never learns)."""
        prompt = prompt.strip()
        if len(prompt) < MIN_PROMPT_CHARS:
            return Preview("", skipped=f"prompts under {MIN_PROMPT_CHARS} characters are not searched")
        ask = ContextAsk(prompt[:MAX_QUERY_CHARS], project, per_scope=(PROJECT_LIMIT, GLOBAL_LIMIT),
                         namespace_limit=NAMESPACE_LIMIT, graph=True)
        answer = self.answer(ask, learn=False)
        text = search_context(answer, project, stale_after=self._stale_after)
        graph = (answer.get("graph") or {}).get("text") or ""
        return Preview(text, list(answer.get("results") or []), graph, answer.get("degraded"))

    def _search(self, ask: ContextAsk) -> SearchResult:
        if ask.per_scope is not None:  # one request, one query embedding, both scopes (the prompt hook)
            return self._memories.search_each(
                ask.query, ask.project, project_limit=ask.per_scope[0], global_limit=ask.per_scope[1],
                category=ask.category, mode=ask.mode, tag=ask.tag, include_untrusted=ask.include_untrusted,
                namespace_limit=ask.namespace_limit)
        return self._memories.search(ask.query, ask.project, limit=ask.limit, category=ask.category,
                                     mode=ask.mode, include_global=ask.include_global, tag=ask.tag,
                                     include_untrusted=ask.include_untrusted)

    def _graph_block(self, prompt: str, project: str) -> GraphBlock | None:
        """The graph's fast block (None if it failed: the memories still go out)."""
        assert self._graph_fast is not None
        try:
            return self._graph_fast(project, prompt)
        except Exception as exc:
            log_failure("graph: fast context failed", exc)
            return None

    def _learn_prompt(self, prompt: str, project: str) -> None:
        assert self._learn is not None
        try:
            self._learn(project, prompt)
        except Exception as exc:
            log_failure("graph: prompt not queued for storage", exc)

    def _threads(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="prompt-context")
        return self._pool
