"""What the search plans from, read once per ANALYZE instead of once per search.

The hybrid search needs the planner's statistics of `memories` (each query term's share of the
memories for its IDF, each project's share and rows for its vector plan) and the installed
pgvector's features. Reading `pg_stats` took 2.5 ms and two round trips of every search; the
statistics only change when ANALYZE runs, so one `SearchStatistics` per process keeps the last
snapshot and each search's one opening statement (`open_search`) both sets the transaction's
search settings and returns the time of the table's last ANALYZE: when that moved, the snapshot
is read again (and the settings set again if the plan changed), so no search plans from older
statistics than a search that read them itself would have.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from chalicelib.memory.adapters.memory_rows import Conn
from chalicelib.memory.domain.memory_model import GLOBAL_PROJECT
from chalicelib.memory.domain.query_terms import TermStatistics, term_parameters
from chalicelib.memory.domain.search_scoring import MIN_EF_SEARCH, vector_plan

_ANALYZED = ("coalesce(greatest(pg_stat_get_last_analyze_time(c.oid),"
             " pg_stat_get_last_autoanalyze_time(c.oid)), 'epoch'::timestamptz)")
_STATS_OF = "{a}.schemaname = current_schema() AND {a}.tablename = 'memories' AND {a}.attname = '{column}'"
_SNAPSHOT = f"""
SELECT {_ANALYZED} AS analyzed, greatest(c.reltuples, 0) AS total,
  (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgvector,
  t.most_common_elems::text::text[] AS elems, t.most_common_elem_freqs AS elem_freqs,
  p.most_common_vals::text::text[] AS projects, p.most_common_freqs AS project_freqs, p.n_distinct
FROM pg_class c
LEFT JOIN pg_stats t ON {_STATS_OF.format(a="t", column="search_tsv")}
LEFT JOIN pg_stats p ON {_STATS_OF.format(a="p", column="project")}
WHERE c.oid = 'memories'::regclass
"""
# Never parallel: a branch's exact scan of a large project is planned with workers, which are
# started (tens of ms on a busy machine) even when its count check leaves it unrun.
# The memories' average length in distinct lexemes (the text score's length pivot, `_COVERAGE`),
# from a sample of about SAMPLED_ROWS rows: read with the rest of the snapshot, once per ANALYZE.
SAMPLED_ROWS = 2_000
_AVERAGE_LEXEMES = ("SELECT avg(length(search_tsv))::float8 AS lexemes"
                    " FROM memories TABLESAMPLE SYSTEM (%(percent)s)")
_OPEN = f"""
SELECT ARRAY(SELECT v.lexeme FROM unnest(to_tsvector('english'::regconfig, %(query)s)) v,
  unnest(v.positions) AS p ORDER BY p) AS lexemes, {_ANALYZED} AS analyzed,
  set_config('max_parallel_workers_per_gather', '0', true) AS parallel,
  set_config('hnsw.ef_search', %(ef)s, true) AS ef,
  CASE WHEN %(iterative)s THEN set_config('hnsw.iterative_scan', 'relaxed_order', true) END AS iterative
FROM pg_class c WHERE c.oid = 'memories'::regclass
"""
_SETTINGS = "SELECT set_config('hnsw.ef_search', %(ef)s, true), CASE WHEN %(iterative)s THEN" \
            " set_config('hnsw.iterative_scan', 'relaxed_order', true) END"


@dataclass(frozen=True)
class Snapshot:
    analyzed: datetime | None
    terms: TermStatistics
    iterative_scan: bool  # pgvector 0.8+: hnsw.iterative_scan
    project_shares: dict[str, float] = field(default_factory=dict)
    unlisted_share: float = 0.0
    total: float = 0.0
    has_project_stats: bool = False
    average_lexemes: float | None = None  # None before any ANALYZE or in an empty table

    def project(self, name: str) -> tuple[float | None, float | None]:
        """(share of all memories, estimated rows) of a project; (None, None) before any ANALYZE.
        A project missing from the most-common list gets the average of the others."""
        if not self.has_project_stats:
            return None, None
        share = self.project_shares.get(name, self.unlisted_share)
        return share, share * self.total


def _snapshot(row: dict[str, Any] | None) -> Snapshot:
    if row is None:
        return Snapshot(None, TermStatistics(None, 0.0, 1.0), False)
    version = tuple(int(p) for p in str(row["pgvector"] or "0.0").split(".")[:2])
    total = float(row["total"])
    terms = TermStatistics.from_pg_stats(row["elems"], row["elem_freqs"], total)
    if row["projects"] is None and row["n_distinct"] is None:
        return Snapshot(row["analyzed"], terms, version >= (0, 8), total=total)
    shares = dict(zip(row["projects"] or [], row["project_freqs"] or [], strict=False))
    distinct = float(row["n_distinct"] or 0)
    distinct = distinct if distinct > 0 else -distinct * total
    rest = max(0.0, 1.0 - sum(shares.values())) / max(1.0, distinct - len(shares))
    return Snapshot(row["analyzed"], terms, version >= (0, 8), {k: float(v) for k, v in shares.items()},
                    rest, total, True)


def vector_plans(snapshot: Snapshot, projects: Sequence[str], pool: int) -> tuple[dict[str, bool], int]:
    """(`ann_N`: use the HNSW index for project N, hnsw.ef_search) for the scope's projects.

    Each project is planned on its own estimated rows: an exact scan of a small one, the index
    for a large one, at the breadth the smallest indexed share needs. `_global` has an HNSW index
    of its own (migration 0145), so within it the share is whole."""
    plans, ef = {}, MIN_EF_SEARCH
    for n, project in enumerate(projects):
        share, rows = snapshot.project(project)
        if project == GLOBAL_PROJECT and share is not None and share > 0:
            share = 1.0
        use_ann, breadth = vector_plan(pool, share, rows)
        plans[f"ann_{n}"] = use_ann
        ef = max(ef, breadth) if use_ann else ef
    return plans, ef


class SearchStatistics:
    """One per process and database: the last statistics snapshot, shared by every search."""

    def __init__(self) -> None:
        self._snapshot: Snapshot | None = None

    def read(self, conn: Conn) -> Snapshot:
        """The statistics as the database has them now (and keep them)."""
        snapshot = _snapshot(conn.execute(_SNAPSHOT).fetchone())
        if snapshot.total > 0:
            percent = min(100.0, 100.0 * SAMPLED_ROWS / snapshot.total)
            row = conn.execute(_AVERAGE_LEXEMES, {"percent": percent}).fetchone()
            if row is not None and row["lexemes"] is not None:
                snapshot = replace(snapshot, average_lexemes=float(row["lexemes"]))
        self._snapshot = snapshot
        return snapshot

    def open_search(self, conn: Conn, query: str, projects: Sequence[str], pool: int,
                    vector: bool) -> dict[str, Any]:
        """Set this transaction's search settings; the statement's term parameters and, for a
        vector search, its `ann_N` plans. One statement unless an ANALYZE ran since the last."""
        snapshot = self._snapshot or self.read(conn)
        plans, settings = self._plan(snapshot, projects, pool, vector)
        row = conn.execute(_OPEN, {"query": query, **settings}, prepare=False).fetchone()
        if row is not None and row["analyzed"] != snapshot.analyzed:
            snapshot = self.read(conn)
            plans, fresh = self._plan(snapshot, projects, pool, vector)
            if fresh != settings:
                conn.execute(_SETTINGS, fresh)
        lexemes = list(row["lexemes"] or ()) if row is not None else []
        return {**term_parameters(lexemes, snapshot.terms), **plans,
                "average_lexemes": snapshot.average_lexemes}

    @staticmethod
    def _plan(snapshot: Snapshot, projects: Sequence[str], pool: int,
              vector: bool) -> tuple[dict[str, bool], dict[str, Any]]:
        plans, ef = vector_plans(snapshot, projects, pool) if vector else ({}, MIN_EF_SEARCH)
        return plans, {"ef": str(ef), "iterative": vector and snapshot.iterative_scan}
