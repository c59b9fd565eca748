"""`GET /api/memory/search`: memory search, and the prompt hook's context (`graph=true`: the memories
with the graph's block, through the one prompt-context pipeline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.context.services.prompt_context import ContextAsk
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, ok, parse_query
from chalicelib.memory.domain.memory_scope import MemoryScope
from chalicelib.memory.schemas import SearchQuery, search_json
from chalicelib.memory.scope_routes import RunScopes, run_scope

if TYPE_CHECKING:
    from chalicelib.context.services.prompt_context import PromptContext
    from chalicelib.memory.services.scoped_reads import ScopedReads
    from chalicelib.memory.services.search_explain import SearchExplainer


class Uses:
    prompt_context: PromptContext
    run_memory_scopes: RunScopes
    scoped_reads: ScopedReads
    search_explainer: SearchExplainer


bp = ApiBlueprint(__name__, Uses)


@bp.route("/api/memory/search", methods=["GET"])
def search() -> Response:
    q = parse_query(bp.current_request, SearchQuery)
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)
    if scope is not None:  # a subagent's hooks: only its profile's projects and categories
        return ok(_scoped_search(q, scope))
    if q.explain:
        if q.per_scope_limits() is not None:
            raise InvalidInput("explain takes limit, not project_limit/global_limit", field="explain")
        return ok(bp.services.search_explainer.explain(
            q.query, q.project, limit=q.limit, category=q.category, mode=q.mode,
            include_global=q.include_global, include_untrusted=q.include_untrusted))
    ask = ContextAsk(q.query, q.project, q.limit, q.per_scope_limits(), q.namespace_limit, q.include_global,
                     q.category, q.mode, q.tag, q.include_untrusted, q.graph)
    return ok(bp.services.prompt_context.answer(ask))


def _scoped_search(q: SearchQuery, scope: MemoryScope) -> dict[str, object]:
    from chalicelib.memory.services.scoped_reads import SearchAsk

    if q.explain:
        raise InvalidInput("explain is not available within a subagent's memory scope", field="explain")
    ask = SearchAsk(q.query, q.project, q.limit, q.per_scope_limits(), q.include_global, q.category, q.mode,
                    q.tag, q.include_untrusted)
    return search_json(bp.services.scoped_reads.search(scope, ask))
