"""The query's terms for the hybrid search: IDF from the planner's statistics, the selective ones.

Pure: the adapter hands over the query's lexemes (`to_tsvector('english', query)`) and the
statistics of `search_tsv` (`pg_stats.most_common_elems` and their frequencies, refreshed by
ANALYZE), and gets back the search statement's term parameters. The statement receives each
tsquery as a value, so the planner estimates how many memories each matches (a tsquery computed
inside the statement is an unknown to it: a rare term's GIN scan was planned as a bitmap AND with
every row of the project). Before the first ANALYZE every term weighs 1.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

CANDIDATE_TERMS = 8  # at most this many of the rarest query terms pick text candidates...
TEXT_BUDGET = 1_500  # ...while the rows they are expected to match stay under this,
MAX_SHARE = 0.05  # ...or the rarest alone, if at most this share of memories holds it.
ALL_TERMS = 32  # text mode's fill-up matches any of this many of the rarest terms
# Every query term still scores every candidate. A term held by more memories than that is
# weak evidence (idf < 3) and would make the text side visit a large part of a big project.
MIN_SHARE = 1e-9


@dataclass(frozen=True)
class TermStatistics:
    """Each listed lexeme's share of the memories, the share a lexeme not listed gets, table rows.

    `shares` None: no statistics yet (every term weighs 1)."""
    shares: Mapping[str, float] | None
    unlisted: float
    rows: float

    @classmethod
    def from_pg_stats(cls, elems: Sequence[str] | None, freqs: Sequence[float] | None,
                      rows: float) -> TermStatistics:
        """From `most_common_elems` and `most_common_elem_freqs` (the per-element frequencies,
        then their minimum, maximum and the null frequency): a lexeme not listed gets half the
        smallest listed share."""
        if elems is None:
            return cls(None, MIN_SHARE, max(rows, 1.0))
        freqs = list(freqs or ())
        shares = {e: max(MIN_SHARE, float(f)) for e, f in zip(elems, freqs, strict=False)}
        smallest = freqs[len(elems)] if len(freqs) > len(elems) else None
        unlisted = max(MIN_SHARE, 0.5 * float(smallest)) if smallest is not None else MIN_SHARE
        return cls(shares, unlisted, max(rows, 1.0))


# A memory's own words (content, summary: class A) and its search key (class B) against its context
# (class D: the memory written before it, `search_keys`): `search_tsv`'s weight classes.
OWN_WEIGHTS = "AB"


def quoted(lexeme: str) -> str:
    """A lexeme as a tsquery operand: quoted, with backslashes and quotes escaped."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


def _pairs(lexemes: Sequence[str], idf: dict[str, float]) -> tuple[list[str], list[float]]:
    """Each two different lexemes next to each other in the query (stop words left out) as a
    tsquery matching them next to each other in a memory, in either order, with the smaller of
    their idfs; each pair once."""
    tqs, idfs, seen = [], [], set()
    for first, second in pairwise(lexemes):
        if first == second or frozenset((first, second)) in seen:
            continue
        seen.add(frozenset((first, second)))
        a, b = quoted(first), quoted(second)
        tqs.append(f"{a} <-> {b} | {b} <-> {a}")
        idfs.append(min(idf[first], idf[second]))
    return tqs, idfs


def term_parameters(lexemes: Sequence[str], stats: TermStatistics) -> dict[str, Any]:
    """The search statement's term parameters: each term's tsquery, the same restricted to a
    memory's own words and key (`term_own_tqs`) and its idf, their sum, the selective terms'
    tsquery (`tq`, None when none is selective), any term's (`tq_all`) and the query's pairs of
    words (`pair_tqs`, `pair_idfs`: `_pairs`). `lexemes` come in the query's order.

    Terms are ranked rarest first (ties by lexeme); the first CANDIDATE_TERMS are selective while
    the rows they are expected to match stay under TEXT_BUDGET, or the rarest alone when at most
    MAX_SHARE of the memories hold it."""
    known = stats.shares
    shares = {lex: (None if known is None else known.get(lex, stats.unlisted)) for lex in set(lexemes)}
    ranked = sorted(shares.items(), key=lambda item: (item[1] is not None, item[1] or 0.0, item[0]))
    idf: dict[str, float] = {}
    tqs, selective, listed, expected = [], [], [], 0.0
    for rarity, (lexeme, share) in enumerate(ranked, start=1):
        tq = quoted(lexeme)
        tqs.append(tq)
        idf[lexeme] = math.log(1.0 / share) if share is not None else 1.0
        expected += (share or 0.0) * stats.rows
        if rarity <= ALL_TERMS:
            listed.append(tq)
        if rarity <= CANDIDATE_TERMS and (share is None or expected <= TEXT_BUDGET
                                          or (rarity == 1 and share <= MAX_SHARE)):
            selective.append(tq)
    idfs = list(idf.values())  # in rarity order, as the terms
    pair_tqs, pair_idfs = _pairs(lexemes, idf)
    return {"term_tqs": tqs, "term_own_tqs": [f"{tq}:{OWN_WEIGHTS}" for tq in tqs],
            "term_idfs": idfs, "total_idf": float(sum(idfs)), "pair_tqs": pair_tqs, "pair_idfs": pair_idfs,
            "tq": " | ".join(selective) or None, "tq_all": " | ".join(listed) or None}
