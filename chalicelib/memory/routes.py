"""The memory API: store (one, a batch, a code change, a markdown file), search, read, forget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import ValidationError

from chalicelib.auth.request_principal import request_writer, require_vouch
from chalicelib.kernel.errors import InvalidInput
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body, parse_query
from chalicelib.memory.scope_routes import RunScopes, run_scope

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_recall import MemoryRecall
    from chalicelib.memory.services.memory_service import MemoryService
    from chalicelib.memory.services.rule_import import RuleImport
    from chalicelib.memory.services.scoped_reads import ScopedReads
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
    StatsQuery,
    hit_json,
    memory_json,
    stats_json,
)


class Uses:
    run_memory_scopes: RunScopes
    memory: MemoryService
    memory_recall: MemoryRecall
    rule_import: RuleImport
    scoped_reads: ScopedReads


bp = ApiBlueprint(__name__, Uses)


@bp.route("/api/memory", methods=["POST"])
def remember() -> Response:
    body = parse_body(bp.current_request, MemoryIn)
    require_vouch(body.source)
    draft = body.draft(request_writer())
    stored = bp.services.memory.remember(draft)
    return ok({"id": stored.id, "deduplicated": stored.deduplicated, "trusted": draft.trusted}, status=201)


@bp.route("/api/memory/batch", methods=["POST"])
def remember_batch() -> Response:
    body = parse_body(bp.current_request, BatchIn)
    require_vouch(*(m.source for m in body.memories))
    writer = request_writer()
    stored = bp.services.memory.remember_many([m.draft(writer) for m in body.memories])
    return ok({"ids": [s.id for s in stored], "deduplicated": [s.deduplicated for s in stored]}, status=201)


@bp.route("/api/memory/code-change", methods=["POST"])
def code_change() -> Response:
    body = parse_body(bp.current_request, CodeChangeIn)
    stored = bp.services.memory.record_code_change(body.project, body.file, body.summary,
                                                       category=body.category, diff=body.diff,
                                                       metadata=body.metadata, session_id=body.session_id,
                                                       writer=request_writer())
    return ok({"id": stored.id, "deduplicated": stored.deduplicated}, status=201)


@bp.route("/api/memory/index", methods=["POST"])
def index_document() -> Response:
    from chalicelib.memory.services.memory_indexing import DocumentIndexer  # lazy: cold start

    body = parse_body(bp.current_request, IndexIn)
    report = DocumentIndexer(bp.services.memory).index(body.project, body.path, body.text,
                                                           category=body.category, writer=request_writer())
    return ok(report.as_json())


@bp.route("/api/memory/recent", methods=["GET"])
def recent() -> Response:
    q = parse_query(bp.current_request, RecentQuery)
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)
    if scope is not None:
        return ok({"results": [memory_json(m) for m in bp.services.scoped_reads.recent(
            scope, q.project, limit=q.limit, category=q.category, metadata=q.metadata_filter(),
            include_untrusted=q.include_untrusted)]})
    memories = bp.services.memory.recent(q.project, limit=q.limit, category=q.category,
                                             metadata=q.metadata_filter(),
                                             include_untrusted=q.include_untrusted)
    return ok({"results": [memory_json(m) for m in memories]})


@bp.route("/api/memory/import-rules", methods=["POST"])
def import_rules() -> Response:
    """Other tools' rule files as project rules and memories: new ones stored, known ones reported."""
    from chalicelib.memory.services.rule_import import ImportedText

    body = parse_body(bp.current_request, ImportRulesIn)
    items = [ImportedText(i.category, i.content, i.path, i.tool, i.line) for i in body.items]
    return ok(bp.services.rule_import.run(body.project, items, dry_run=body.dry_run,
                                              writer=request_writer()))


@bp.route("/api/memory/recall", methods=["GET"])
def recall() -> Response:
    """What memory holds about a file being read, or the recorded fixes for an error (trusted only)."""
    q = parse_query(bp.current_request, RecallQuery).checked()
    scope = run_scope(bp.current_request, bp.services.run_memory_scopes)
    if scope is not None:
        scoped = bp.services.scoped_reads
        if q.file is not None:
            found = [memory_json(m) for m in scoped.about_file(scope, q.project, q.file, q.limit)]
        else:
            found = [hit_json(h) for h in scoped.for_error(scope, q.project, q.error or "", q.limit)]
        return ok({"results": found})
    recall = bp.services.memory_recall
    if q.file is not None:
        return ok({"results": [memory_json(m) for m in recall.about_file(q.project, q.file, q.limit)]})
    assert q.error is not None
    return ok({"results": [hit_json(h) for h in recall.for_error(q.project, q.error, q.limit)]})


@bp.route("/api/memory/stats", methods=["GET"])
def stats() -> Response:
    q = parse_query(bp.current_request, StatsQuery)
    return ok(stats_json(bp.services.memory.stats(q.project)))


@bp.route("/api/memory/{memory_id}", methods=["GET"])
def get_memory(memory_id: str) -> Response:
    return ok(memory_json(bp.services.memory.get(parse_memory_id(memory_id))))


@bp.route("/api/memory/{memory_id}", methods=["DELETE"])
def forget(memory_id: str) -> Response:
    ident = parse_memory_id(memory_id)
    bp.services.memory.delete(ident)
    return ok({"id": ident, "deleted": True})


@bp.route("/api/memory/{memory_id}/promote", methods=["POST"])
def promote(memory_id: str) -> Response:
    """A person vouches for a quarantined memory (admin keys only: an agent cannot promote)."""
    ident = parse_memory_id(memory_id)
    body = parse_body(bp.current_request, PromoteIn) if bp.current_request.raw_body else PromoteIn()
    return ok(memory_json(bp.services.memory.promote(ident, body.by)))


def parse_memory_id(raw: str) -> str:
    try:
        return str(MemoryIdPath.model_validate({"id": raw}).id)
    except ValidationError:
        raise InvalidInput("id: must be a memory id (a UUID)", field="id") from None
