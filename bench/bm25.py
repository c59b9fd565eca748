"""Okapi BM25 over the benchmark's own turns: the lexical reference, computed here, not quoted.

    score(d, q) = sum over query terms t of idf(t) * tf(t, d) * (k1 + 1)
                  / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))

with Lucene's defaults k1 = 1.2, b = 0.75, over two tokenisations: `words` (lower-cased runs
of letters and digits, nothing stemmed or dropped: BM25's idf discounts common words itself)
and `english_lexemes` (Postgres's `to_tsvector('english')`: Snowball stems, stop words
dropped, the same normalisation as Itachi's full-text side).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN = re.compile(r"[a-z0-9]+")
K1, B = 1.2, 0.75


def words(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def english_lexemes(database_url: str, texts: Sequence[str]) -> list[list[str]]:
    """Each text as Postgres's english lexemes, each repeated as often as it occurs."""
    import psycopg

    out: list[list[str]] = [[] for _ in texts]
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT x.i, v.lexeme, coalesce(array_length(v.positions, 1), 1)"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS x(t, i),"
            " unnest(to_tsvector('english', x.t)) AS v", (list(texts),)).fetchall()
    for i, lexeme, count in rows:
        out[int(i) - 1] += [lexeme] * int(count)
    return out


class Bm25Index:
    """One corpus (a conversation's memories, as token lists): rank its documents for a query."""

    def __init__(self, ids: Sequence[str], documents: Sequence[Sequence[str]]) -> None:
        self._ids = list(ids)
        self._tf = [Counter(d) for d in documents]
        self._len = [sum(tf.values()) for tf in self._tf]
        self._avg = (sum(self._len) / len(self._len)) if self._len else 0.0
        df: Counter[str] = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        n = len(self._tf)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def rank(self, query: Sequence[str], limit: int) -> list[str]:
        """The ids of the `limit` best documents for the query's tokens (ties keep corpus order)."""
        terms = [t for t in set(query) if t in self._idf]
        scored = []
        for i, tf in enumerate(self._tf):
            norm = K1 * (1 - B + B * self._len[i] / self._avg) if self._avg else K1
            score = sum(self._idf[t] * tf[t] * (K1 + 1) / (tf[t] + norm) for t in terms if t in tf)
            if score > 0:
                scored.append((-score, i))
        scored.sort()
        return [self._ids[i] for _, i in scored[:limit]]
