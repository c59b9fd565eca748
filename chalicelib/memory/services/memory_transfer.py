"""Export and import of memories with their archives, exactly as stored (`itachi export/import`).

Export pages by id and hands back every field the git-friendly files hold, nothing volatile.
Import is idempotent on the ids: each record is upserted in the batch's transaction, in the order
the memories were written (`memory_files.write_order`) and with the context a write gives
(`search_keys.contexts`: the memory before it), so search ranks them as before the round trip (a record
whose project already holds its content under another id is reported as a conflict and skipped,
the rest of the batch goes on); links between memories are set once both ends exist, or handed
back as deferred for the caller to send again after the last batch. New or changed texts are
embedded after the commit within the write deadline (a failure leaves them for
`itachi memory check --fix`).

The graph travels beside them: nodes (their vectors computed again after the commit), edges,
and contradictions, upserted by id in that order, node supersedes linked as memories' are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chalicelib.contracts.memory_files import write_order
from chalicelib.kernel.redaction import redact
from chalicelib.memory.domain.search_keys import contexts
from chalicelib.memory.services.lifecycle_ports import LifecycleUnits
from chalicelib.memory.services.memory_store import embed_stored
from chalicelib.memory.services.ports import Embedder


@dataclass
class ImportReport:
    counts: dict[str, int] = field(default_factory=lambda: {"inserted": 0, "updated": 0, "unchanged": 0})
    conflicts: list[str] = field(default_factory=list)
    deferred: list[tuple[str, str | None]] = field(default_factory=list)
    embedded: int = 0

    def as_json(self) -> dict[str, Any]:
        return {**self.counts, "conflicts": self.conflicts, "embedded": self.embedded,
                "deferred": [{"id": i, "superseded_by": t} for i, t in self.deferred]}


GRAPH_PARTS = (("nodes", "graph_nodes"), ("edges", "graph_edges"), ("contradictions", "graph_contradictions"))


@dataclass
class GraphImportReport:
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=lambda: {"conflict": [], "missing": []})
    deferred: list[tuple[str, str | None]] = field(default_factory=list)
    embedded: int = 0

    def as_json(self) -> dict[str, Any]:
        return {**self.counts, "conflicts": self.refused["conflict"], "missing": self.refused["missing"],
                "embedded": self.embedded,
                "deferred": [{"id": i, "superseded_by": t} for i, t in self.deferred]}


class MemoryTransfer:
    def __init__(self, units: LifecycleUnits, embedder: Embedder) -> None:
        self._units = units
        self._embedder = embedder

    def export_page(self, project: str | None, after: str | None, limit: int) -> list[dict[str, Any]]:
        with self._units() as uow:
            return uow.transfer.export_page(project, after, limit)

    def import_batch(self, records: Sequence[dict[str, Any]], links: Sequence[tuple[str, str | None]] = (),
                     *, embed: bool = True) -> ImportReport:
        report = ImportReport()
        touched = []
        cleaned = _with_contexts(sorted((_redacted(r) for r in records), key=write_order))
        with self._units() as uow:
            outcomes = uow.transfer.upsert_many(cleaned) if cleaned else []
            if outcomes is None:  # one of them conflicts: record by record, so the rest still goes in
                outcomes = [uow.transfer.upsert(r) for r in cleaned]
            for record, outcome in zip(cleaned, outcomes, strict=True):
                if outcome == "conflict":
                    report.conflicts.append(record["id"])
                    continue
                report.counts[outcome] += 1
                touched.append(record["id"])
            wanted = [(r["id"], r.get("superseded_by")) for r in records if r["id"] in set(touched)]
            report.deferred = uow.transfer.link([*wanted, *links])
            uow.commit()
        if embed and touched:
            report.embedded = self._embed(touched)
        return report

    def export_graph_page(self, project: str | None, after: str | None, limit: int
                          ) -> dict[str, list[dict[str, Any]]]:
        with self._units() as uow:
            return uow.graph_transfer.export_page(project, after, limit)

    def import_graph(self, parts: Mapping[str, Sequence[dict[str, Any]]],
                     links: Sequence[tuple[str, str | None]] = ()) -> GraphImportReport:
        """Upsert nodes, then edges, then contradictions by id (idempotent), and link supersedes."""
        report = GraphImportReport()
        with self._units() as uow:
            repo = uow.graph_transfer
            for part, table in GRAPH_PARTS:
                records = parts.get(part, ())
                outcomes = repo.upsert(table, [{k: v for k, v in r.items() if k != "superseded_by"}
                                               for r in records])
                report.counts[part] = {k: 0 for k in ("inserted", "updated", "unchanged")}
                for ident, outcome in outcomes.items():
                    if outcome in report.refused:
                        report.refused[outcome].append(ident)
                    else:
                        report.counts[part][outcome] += 1
                if part == "nodes":
                    stored = [r for r in records if outcomes[str(r["id"])] not in report.refused]
                    report.deferred = repo.link([*((str(r["id"]), r.get("superseded_by")) for r in stored),
                                                 *links])
            uow.commit()
        touched = [str(r["id"]) for r in parts.get("nodes", ())
                   if str(r["id"]) not in report.refused["conflict"]]
        report.embedded = self._embed_nodes(touched) if touched else 0
        return report

    def _embed_nodes(self, node_ids: list[str]) -> int:
        with self._units() as uow:
            pending = uow.graph_transfer.unembedded(node_ids)
        vectors = self._vectors(pending)
        if vectors:
            with self._units() as uow:
                uow.graph_transfer.set_vectors(vectors)
                uow.commit()
        return len(vectors)

    def _embed(self, memory_ids: list[str]) -> int:
        """Embed the imported memories as a write does: each one's vector and a long one's windows."""
        with self._units() as uow:
            pending = uow.transfer.unembedded(memory_ids)
        try:
            vectors = embed_stored(self._embedder, pending) if pending else []
        except Exception:  # the embedder is down: `itachi memory check --fix` embeds them later
            return 0
        if vectors:
            with self._units() as uow:
                uow.memories.set_embeddings(vectors, self._embedder.model)
                uow.commit()
        return len(vectors)

    def _vectors(self, texts: list[tuple[str, str]]) -> list[tuple[str, list[float]]]:
        """(id, vector) of each graph node's (id, text); none while the embedder is down: the nodes
        are found by name and words meanwhile."""
        if not texts:
            return []
        try:
            vectors = self._embedder.embed([text for _, text in texts])
        except Exception:
            return []
        return [(i, v) for (i, _), v in zip(texts, vectors, strict=True)]


def _with_contexts(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records, in write order, each with the context a write would give it (`search_keys.contexts`)."""
    found = contexts([(r["project"], r.get("session_id"), r["content"], r["created_at"]) for r in records])
    return [{**r, "search_context": context} for r, context in zip(records, found, strict=True)]


def _redacted(record: dict[str, Any]) -> dict[str, Any]:
    """What an edited file may have let in is redacted like every other write."""
    out = {**record, "content": redact(record["content"]), "summary": redact(record["summary"])}
    archive = record.get("archive")
    if archive is not None:
        out["archive"] = {**archive, "content": redact(archive["content"]),
                          "summary": redact(archive["summary"])}
    return out
