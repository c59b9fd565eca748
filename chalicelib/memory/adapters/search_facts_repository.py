"""Postgres access to the model's pass over search keys: the memories waiting for it, and its result.

Bound to one unit of work's connection. A result is written only if the memory still waits and its
content is the one the model read (a rewrite meanwhile leaves it for a later pass).
"""

from __future__ import annotations

from collections.abc import Sequence

from chalicelib.memory.adapters.memory_rows import LIVE, Conn
from chalicelib.memory.domain.key_facts import KeyFacts, WaitingMemory
from chalicelib.memory.domain.memory_model import ON_REQUEST_CATEGORIES


class PostgresSearchFacts:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def waiting(self, limit: int, max_tries: int) -> list[WaitingMemory]:
        """Live, trusted memories of the categories searched by default without a model pass, failed
        on fewer than `max_tries` times: the fewest failed passes first, then the oldest."""
        rows = self._conn.execute(
            "SELECT m.id, m.content, m.content_hash, m.created_at, m.search_key, m.search_facts,"
            " m.search_facts_tries FROM memories m"
            f" WHERE m.search_facts_at IS NULL AND m.search_facts_tries < %s AND m.trusted AND {LIVE}"
            " AND NOT (m.category = ANY(%s)) ORDER BY m.search_facts_tries, m.created_at, m.id LIMIT %s",
            (max_tries, list(ON_REQUEST_CATEGORIES), limit)).fetchall()
        return [WaitingMemory(str(r["id"]), r["content"], r["content_hash"], r["created_at"],
                              r["search_key"], r["search_facts"], r["search_facts_tries"]) for r in rows]

    def failed(self, memory_ids: Sequence[str]) -> None:
        """Count one more unanswered pass on each of these memories (still waiting)."""
        self._conn.execute("UPDATE memories SET search_facts_tries = least(search_facts_tries + 1, 32000)"
                           " WHERE id = ANY(%s::uuid[]) AND search_facts_at IS NULL", (list(memory_ids),))

    def record(self, results: Sequence[KeyFacts]) -> int:
        """Store each memory's new key and facts and mark it done; return how many were still waiting."""
        if not results:
            return 0
        return self._conn.execute(
            "UPDATE memories m SET search_key = r.key, search_facts = r.facts, search_facts_at = now()"
            " FROM unnest(%s::uuid[], %s::text[], %s::text[], %s::text[]) AS r(id, content_hash, key, facts)"
            " WHERE m.id = r.id AND m.search_facts_at IS NULL AND m.content_hash = r.content_hash",
            ([r.memory_id for r in results], [r.content_hash for r in results],
             [r.search_key for r in results], [r.facts for r in results])).rowcount
