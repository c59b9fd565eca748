"""The query's terms for the hybrid search: IDF from the planner's statistics, the selective ones.

A statement of its own, run before the search statement, so that the search statement gets its
tsqueries as values: the planner then estimates how many memories each matches from the same
statistics (a tsquery computed inside the statement is an unknown to it, and a rare term's GIN
scan was planned as a bitmap AND with every row of the project: 40,000 index entries read to
keep three). IDF comes from `pg_stats.most_common_elems` of `search_tsv`, refreshed by ANALYZE,
so nothing is maintained on the write path; before the first ANALYZE every term weighs 1.
"""

from __future__ import annotations

from typing import Any

from chalicelib.memory.adapters.memory_repository import Conn

CANDIDATE_TERMS = 8  # at most this many of the rarest query terms pick text candidates...
TEXT_BUDGET = 1_500  # ...while the rows they are expected to match stay under this,
MAX_SHARE = 0.05  # ...or the rarest alone, if at most this share of memories holds it.
ALL_TERMS = 32  # text mode's fill-up matches any of this many of the rarest terms
# Every query term still scores every candidate. A term held by more memories than that is
# weak evidence (idf < 3) and would make the text side visit a large part of a big project.

# A lexeme as a tsquery operand: quoted, with backslashes and quotes escaped.
_QUOTED = r"('''' || replace(replace(lexeme, '\', '\\'), '''', '''''') || '''')"
_TERMS = r"""
WITH stats AS (
  SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
  WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'search_tsv'),
shares AS (
  SELECT t.lexeme, CASE WHEN s.elems IS NULL THEN NULL ELSE greatest(1e-9, coalesce(
      s.freqs[array_position(s.elems, t.lexeme)], s.freqs[array_length(s.elems, 1) + 1] * 0.5)) END AS share
  FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, %(query)s))) AS t(lexeme)
  LEFT JOIN stats s ON true),
terms AS (
  SELECT lexeme, share, coalesce(ln(1.0 / share), 1.0) AS idf, QUOTED AS tq,
    row_number() OVER (ORDER BY share NULLS FIRST, lexeme) AS rarity,
    sum(share) OVER (ORDER BY share NULLS FIRST, lexeme) * (
      SELECT greatest(reltuples, 1) FROM pg_class WHERE oid = 'memories'::regclass) AS expected_rows
  FROM shares)
SELECT tq, idf, rarity <= %(all_terms)s AS listed, rarity <= %(candidate_terms)s AND (
    share IS NULL OR expected_rows <= %(text_budget)s OR (rarity = 1 AND share <= %(max_share)s)) AS selective
FROM terms ORDER BY rarity
""".replace("QUOTED", _QUOTED)


def query_terms(conn: Conn, query: str) -> dict[str, Any]:
    """The search statement's term parameters: each term's tsquery and idf, their sum, the
    selective terms' tsquery (`tq`, None when none is selective) and any term's (`tq_all`)."""
    params = {"query": query, "all_terms": ALL_TERMS, "candidate_terms": CANDIDATE_TERMS,
              "text_budget": TEXT_BUDGET, "max_share": MAX_SHARE}
    rows = conn.execute(_TERMS, params, prepare=False).fetchall()
    return {
        "term_tqs": [r["tq"] for r in rows], "term_idfs": [float(r["idf"]) for r in rows],
        "total_idf": float(sum(r["idf"] for r in rows)),
        "tq": " | ".join(r["tq"] for r in rows if r["selective"]) or None,
        "tq_all": " | ".join(r["tq"] for r in rows if r["listed"]) or None,
    }
