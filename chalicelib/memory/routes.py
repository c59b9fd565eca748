"""The memory API: store (one, a batch, a code change, a markdown file), search, read, forget."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING

from chalice import Response
from pydantic import ValidationError

from chalicelib.agents.domain.memory_scope import MemoryScope
from chalicelib.agents.scope_routes import run_scope
from chalicelib.auth.request_principal import request_writer, require_vouch
from chalicelib.bootstrap import get_container
from chalicelib.kernel.after_response import after_response
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body, parse_query

if TYPE_CHECKING:
    from chalicelib.graph.services.graph_retrieve import GraphContext
from chalicelib.memory.schemas import (
    BatchIn,
    CodeChangeIn,
    ImportRulesIn,
    IndexIn,
    MemoryIdPath,
    MemoryIn,
    PromoteIn,
    RecallQuery,
    RecentQuery,
    SearchQuery,
    StatsQuery,
    hit_json,
    memory_json,
    search_json,
    stats_json,
)

bp = ApiBlueprint(__name__)


@bp.route("/api/memory", methods=["POST"])
def remember() -> Response:
    body = parse_body(bp.current_request, MemoryIn)
    require_vouch(body.source)
    draft = body.draft(request_writer())
    stored = get_container().memory.remember(draft)
    return ok({"id": stored.id, "deduplicated": stored.deduplicated, "trusted": draft.trusted}, status=201)


@bp.route("/api/memory/batch", methods=["POST"])
def remember_batch() -> Response:
    body = parse_body(bp.current_request, BatchIn)
    require_vouch(*(m.source for m in body.memories))
    writer = request_writer()
    stored = get_container().memory.remember_many([m.draft(writer) for m in body.memories])
    return ok({"ids": [s.id for s in stored], "deduplicated": [s.deduplicated for s in stored]}, status=201)


@bp.route("/api/memory/code-change", methods=["POST"])
def code_change() -> Response:
    body = parse_body(bp.current_request, CodeChangeIn)
    stored = get_container().memory.record_code_change(body.project, body.file, body.summary,
                                                       category=body.category, diff=body.diff,
                                                       metadata=body.metadata, writer=request_writer())
    return ok({"id": stored.id, "deduplicated": stored.deduplicated}, status=201)


@bp.route("/api/memory/index", methods=["POST"])
def index_document() -> Response:
    from chalicelib.memory.services.memory_indexing import DocumentIndexer  # lazy: cold start

    body = parse_body(bp.current_request, IndexIn)
    report = DocumentIndexer(get_container().memory).index(body.project, body.path, body.text,
                                                           category=body.category, writer=request_writer())
    return ok(report.as_json())


@bp.route("/api/memory/search", methods=["GET"])
def search() -> Response:
    q = parse_query(bp.current_request, SearchQuery)
    scope = run_scope(bp.current_request)
    if scope is not None:  # a subagent's hooks: only its profile's projects and categories
        return ok(_scoped_search(q, scope))
    if q.explain:
        if q.per_scope_limits() is not None:
            raise InvalidInput("explain takes limit, not project_limit/global_limit", field="explain")
        return ok(get_container().search_explainer.explain(
            q.query, q.project, limit=q.limit, category=q.category, mode=q.mode,
            include_global=q.include_global, include_untrusted=q.include_untrusted))
    memory = get_container().memory
    graph = [_graph_pool().submit(_graph_context, q.query, q.project)] if q.graph else []
    if q.graph and not after_response(partial(_learn_prompt, q.query, q.project)):
        graph.append(_graph_pool().submit(_learn_prompt, q.query, q.project))  # no server runs it after
    per_scope = q.per_scope_limits()
    if per_scope is not None:  # one request, one query embedding, both scopes (the prompt hook)
        result = memory.search_each(q.query, q.project, project_limit=per_scope[0], global_limit=per_scope[1],
                                    category=q.category, mode=q.mode, tag=q.tag,
                                    include_untrusted=q.include_untrusted, namespace_limit=q.namespace_limit)
    else:
        result = memory.search(q.query, q.project, limit=q.limit, category=q.category, mode=q.mode,
                               include_global=q.include_global, tag=q.tag,
                               include_untrusted=q.include_untrusted)
    answer = search_json(result)
    if graph:  # it ran beside the memory search; one query embedding serves both
        context = graph[0].result()
        # A rule among the memories found is not repeated in the graph's instructions.
        shown = [str(r.get("id")) for r in answer.get("results") or [] if isinstance(r, dict)]
        answer["graph"] = None if context is None else {"text": context.without_rules(shown).text}
        for learning in graph[1:]:
            learning.result()
    return ok(answer)


def _scoped_search(q: SearchQuery, scope: MemoryScope) -> dict[str, object]:
    from chalicelib.agents.services.memory_scope import SearchAsk

    if q.explain:
        raise InvalidInput("explain is not available within a subagent's memory scope", field="explain")
    ask = SearchAsk(q.query, q.project, q.limit, q.per_scope_limits(), q.include_global, q.category, q.mode,
                    q.tag, q.include_untrusted)
    return search_json(get_container().scoped_reads.search(scope, ask))


_pool: ThreadPoolExecutor | None = None


def _graph_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="graph-context")
    return _pool


def _graph_context(prompt: str, project: str) -> GraphContext | None:
    """The graph memory's fast context for the prompt (None if it failed: the memories still go out)."""
    from chalicelib.kernel.logging import log_failure

    try:
        return get_container().graph_retrieve.fast(project, prompt)
    except Exception as exc:
        log_failure("graph: fast context failed", exc)
        return None


def _learn_prompt(prompt: str, project: str) -> None:
    """Queue the prompt for the graph's store pipeline, which starts after this request has answered.
    The local server sends it once the response is written; in Lambda it is sent beside the search."""
    from chalicelib.graph.services.graph_store import PROMPT_DELAY_S
    from chalicelib.kernel.logging import log_failure

    try:
        get_container().graph_store.submit(project, prompt, "user", {"via": "prompt"}, delay_s=PROMPT_DELAY_S)
    except Exception as exc:
        log_failure("graph: prompt not queued for storage", exc)


@bp.route("/api/memory/recent", methods=["GET"])
def recent() -> Response:
    q = parse_query(bp.current_request, RecentQuery)
    scope = run_scope(bp.current_request)
    if scope is not None:
        return ok({"results": [memory_json(m) for m in get_container().scoped_reads.recent(
            scope, q.project, limit=q.limit, category=q.category, metadata=q.metadata_filter(),
            include_untrusted=q.include_untrusted)]})
    memories = get_container().memory.recent(q.project, limit=q.limit, category=q.category,
                                             metadata=q.metadata_filter(),
                                             include_untrusted=q.include_untrusted)
    return ok({"results": [memory_json(m) for m in memories]})


@bp.route("/api/memory/import-rules", methods=["POST"])
def import_rules() -> Response:
    """Other tools' rule files as project rules and memories: new ones stored, known ones reported."""
    from chalicelib.memory.services.rule_import import ImportedText

    body = parse_body(bp.current_request, ImportRulesIn)
    items = [ImportedText(i.category, i.content, i.path, i.tool, i.line) for i in body.items]
    return ok(get_container().rule_import.run(body.project, items, dry_run=body.dry_run,
                                              writer=request_writer()))


@bp.route("/api/memory/recall", methods=["GET"])
def recall() -> Response:
    """What memory holds about a file being read, or the recorded fixes for an error (trusted only)."""
    q = parse_query(bp.current_request, RecallQuery).checked()
    scope = run_scope(bp.current_request)
    if scope is not None:
        scoped = get_container().scoped_reads
        if q.file is not None:
            found = [memory_json(m) for m in scoped.about_file(scope, q.project, q.file, q.limit)]
        else:
            found = [hit_json(h) for h in scoped.for_error(scope, q.project, q.error or "", q.limit)]
        return ok({"results": found})
    recall = get_container().memory_recall
    if q.file is not None:
        return ok({"results": [memory_json(m) for m in recall.about_file(q.project, q.file, q.limit)]})
    assert q.error is not None
    return ok({"results": [hit_json(h) for h in recall.for_error(q.project, q.error, q.limit)]})


@bp.route("/api/memory/stats", methods=["GET"])
def stats() -> Response:
    q = parse_query(bp.current_request, StatsQuery)
    return ok(stats_json(get_container().memory.stats(q.project)))


@bp.route("/api/memory/{memory_id}", methods=["GET"])
def get_memory(memory_id: str) -> Response:
    return ok(memory_json(get_container().memory.get(parse_memory_id(memory_id))))


@bp.route("/api/memory/{memory_id}", methods=["DELETE"])
def forget(memory_id: str) -> Response:
    ident = parse_memory_id(memory_id)
    get_container().memory.delete(ident)
    return ok({"id": ident, "deleted": True})


@bp.route("/api/memory/{memory_id}/promote", methods=["POST"])
def promote(memory_id: str) -> Response:
    """A person vouches for a quarantined memory (admin keys only: an agent cannot promote)."""
    ident = parse_memory_id(memory_id)
    body = parse_body(bp.current_request, PromoteIn) if bp.current_request.raw_body else PromoteIn()
    return ok(memory_json(get_container().memory.promote(ident, body.by)))


def parse_memory_id(raw: str) -> str:
    try:
        return str(MemoryIdPath.model_validate({"id": raw}).id)
    except ValidationError:
        raise InvalidInput("id: must be a memory id (a UUID)", field="id") from None
