"""The memory lifecycle API: list by phase and tag, tag, restore an archived original, evict, check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.auth.request_principal import request_writer
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body, parse_query
from chalicelib.memory.lifecycle_schemas import EvictIn, FixIn, ListQuery, PhaseQuery, TagsIn, page_json
from chalicelib.memory.routes import parse_memory_id
from chalicelib.memory.schemas import memory_json
from chalicelib.memory.transfer_schemas import ExportQuery, ImportIn

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_eviction import MemoryEviction
    from chalicelib.memory.services.memory_integrity import MemoryIntegrity
    from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
    from chalicelib.memory.services.memory_transfer import MemoryTransfer


class Uses:
    memory_eviction: MemoryEviction
    memory_integrity: MemoryIntegrity
    memory_lifecycle: MemoryLifecycle
    memory_transfer: MemoryTransfer


bp = ApiBlueprint(__name__, Uses)


@bp.route("/api/memory", methods=["GET"])
def list_memories() -> Response:
    """Memories of any phase, newest first, filtered by project, phase, tag and category."""
    q = parse_query(bp.current_request, ListQuery)
    page = bp.services.memory_lifecycle.listing(project=q.project, phase=q.phase_number(), tag=q.tag,
                                                    category=q.category, after=q.after(), limit=q.limit)
    return ok(page_json(page.memories, page.next_after))


@bp.route("/api/memory/phases", methods=["GET"])
def phases() -> Response:
    """How many memories are in each phase (of one project or all)."""
    q = parse_query(bp.current_request, PhaseQuery)
    return ok({"project": q.project, "phases": bp.services.memory_lifecycle.phase_counts(q.project)})


@bp.route("/api/memory/{memory_id}/restore", methods=["POST"])
def restore(memory_id: str) -> Response:
    """Bring an evicted memory's archived original back whole."""
    memory, restored = bp.services.memory_lifecycle.restore(parse_memory_id(memory_id))
    return ok({"restored": restored, "memory": memory_json(memory)})


@bp.route("/api/memory/{memory_id}/tags", methods=["POST"])
def tag(memory_id: str) -> Response:
    """Add and remove free tags (`keep` protects a memory from eviction)."""
    body = parse_body(bp.current_request, TagsIn)
    memory = bp.services.memory_lifecycle.tag(parse_memory_id(memory_id), body.add, body.remove)
    return ok(memory_json(memory))


@bp.route("/api/memory/evict", methods=["POST"])
def evict() -> Response:
    """Run one bounded eviction pass now (the weekly schedule runs the same)."""
    body = parse_body(bp.current_request, EvictIn)
    report = bp.services.memory_eviction.run(body.run_key, project=body.project,
                                                 time_budget_s=body.time_budget_s, max_steps=body.max_steps)
    return ok(report.as_json())


@bp.route("/api/memory/check", methods=["GET"])
def check() -> Response:
    """Count what is wrong in the memory store (of one project or all)."""
    q = parse_query(bp.current_request, PhaseQuery)
    return ok(bp.services.memory_integrity.check(q.project).as_json())


@bp.route("/api/memory/check/fix", methods=["POST"])
def fix() -> Response:
    """Repair what is safe (vectors, duplicates, superseded loops); report what is left."""
    body = parse_body(bp.current_request, FixIn)
    return ok(bp.services.memory_integrity.fix(body.project, time_budget_s=body.time_budget_s).as_json())


@bp.route("/api/memory/export", methods=["GET"])
def export() -> Response:
    """A page of memories (with archived originals), or of graph nodes (with their outgoing edges and
    the contradictions they raised), as the git-friendly files hold them."""
    from chalicelib.memory.transfer_schemas import graph_json, record_json

    q = parse_query(bp.current_request, ExportQuery)
    after, transfer = str(q.after) if q.after else None, bp.services.memory_transfer
    if q.part == "graph":
        page = transfer.export_graph_page(q.project, after, q.limit)
        nodes = page["nodes"]
        return ok({**{part: [graph_json(part, r) for r in rows] for part, rows in page.items()},
                   "next_after": nodes[-1]["id"] if len(nodes) == q.limit else None})
    rows = transfer.export_page(q.project, after, q.limit)
    last = rows[-1]["id"] if len(rows) == q.limit else None
    return ok({"records": [record_json(r) for r in rows], "next_after": last})


@bp.route("/api/memory/import", methods=["POST"])
def import_records() -> Response:
    """Upsert exported records by id (idempotent); links whose ends are missing come back deferred.
    Rows keep their trust flag only when a person (an admin key) imports them."""
    body = parse_body(bp.current_request, ImportIn)
    person, transfer = request_writer() == "person", bp.services.memory_transfer
    links = [(str(link.id), str(link.superseded_by) if link.superseded_by else None) for link in body.links]
    records = [{**r.stored(), "trusted": r.trusted and person} for r in body.records]
    report = transfer.import_batch(records, links, embed=body.embed).as_json()
    graph_links = [(str(link.id), str(link.superseded_by) if link.superseded_by else None)
                   for link in body.graph_links]
    if body.graph_nodes or body.graph_edges or body.graph_contradictions or graph_links:
        report["graph"] = transfer.import_graph(body.graph_parts(person), graph_links).as_json()
    return ok(report)
