"""A batch of prepared drafts written chunk by chunk, decided as if stored one by one in input order.

`BatchWrite` lives inside one unit of work. Each `add` takes the next chunk of the batch: one
nearest-neighbour statement per (project, category) of the chunk against the table (which by
then holds the rows the earlier chunks inserted, in the same transaction), one statement for
the near pairs between the chunk and the batch's kept drafts of that group (earlier chunks and
its own), the guard in Python, then one multi-row insert of what it keeps. `finish` reinforces
every duplicate of the whole batch, in one order (by target id) so two batches lock rows alike.
A batch added as one chunk is the set-based write of docs/memory.md; split into chunks, each
chunk can be written while the next one is still being embedded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from chalicelib.memory.domain.dedup_guard import same_facts
from chalicelib.memory.domain.fact_updates import search_words, updated
from chalicelib.memory.domain.memory_model import MemoryDraft, StoreResult, content_hash
from chalicelib.memory.services.ports import MemoryRepository

Kind = Literal["exact", "near"]
NEAREST = 5  # neighbours a draft is compared with, most similar first
# A later memory this similar that restates a fact with another value updates the earlier one
# ("staging moved from Postgres 15 to 16" / "staging runs Postgres 15" are 0.84 apart with
# all-MiniLM-L6-v2; rewordings of one fact sit above 0.9, other subjects below 0.75).
UPDATE_COSINE = 0.8
STATING = 4  # earlier memories sharing the words of one of a draft's fact sentences, compared with it
Near = tuple[float, int | str, str, str]  # (similarity, earlier draft index or memory id, category, content)


class BatchWrite:
    def __init__(self, memories: MemoryRepository, *, near_dedup: bool, near_threshold: float) -> None:
        self._memories = memories
        self._near_dedup = near_dedup
        self._threshold = near_threshold
        self._drafts: list[MemoryDraft] = []
        self._kept: dict[tuple[str, str], int] = {}  # (project, content hash) -> index of the kept draft
        self._kept_at: set[int] = set()  # the indices of the kept drafts
        self._merged: dict[int, tuple[int | str, Kind]] = {}  # index -> (kept index or memory id, reason)
        self._live: dict[tuple[str, str], list[int]] = {}  # (project, category) -> kept drafts with a vector
        self._inserted: set[str] = set()  # ids of the rows this batch inserted
        self._results: dict[int, StoreResult] = {}
        self._updates: dict[int, list[int | str]] = {}  # kept draft -> the memories or drafts it updates

    @property
    def inserted(self) -> int:
        return len(self._inserted)

    def add(self, chunk: Sequence[MemoryDraft]) -> None:
        """Decide and insert the next drafts of the batch (their index follows the earlier chunks')."""
        start = len(self._drafts)
        self._drafts.extend(chunk)
        indices = range(start, len(self._drafts))
        near = self._neighbours(indices) if self._near_dedup else {}
        kept_now: list[int] = []
        for j in indices:
            draft = self._drafts[j]
            key = (draft.project, draft.content_hash)
            if key in self._kept:
                self._merged[j] = (self._kept[key], "exact")
                continue
            found = self._duplicate_of(draft, near.get(j, ()))
            if found is not None:
                self._merged[j] = found
                continue
            self._kept[key] = j
            self._kept_at.add(j)
            kept_now.append(j)
            if draft.embedding is not None:
                self._live.setdefault((draft.project, draft.category), []).append(j)
        # Untrusted text (a web page's) never marks a memory outdated: that would hide it from prompts.
        trusted = [j for j in kept_now if self._drafts[j].trusted]
        stating = self._stating(trusted)
        for j in trusted:
            if older := self._updated(j, [*near.get(j, ()), *stating.get(j, ())]):
                self._updates[j] = older
        stored = self._memories.insert_many([self._drafts[i] for i in kept_now])
        for i, (memory_id, inserted) in zip(kept_now, stored, strict=True):
            self._results[i] = StoreResult(memory_id, not inserted, None if inserted else "exact")
            if inserted:
                self._inserted.add(memory_id)

    def finish(self) -> list[StoreResult]:
        """Reinforce the batch's duplicates; the results in input order."""
        targets = {j: self._results[ref].id if isinstance(ref, int) else ref
                   for j, (ref, _) in self._merged.items()}
        for j in sorted(self._merged, key=lambda j: (targets[j], j)):  # one lock order for every batch
            self._memories.reinforce(targets[j], self._drafts[j].created_at)
            self._results[j] = StoreResult(targets[j], True, self._merged[j][1])
        successor: dict[str, str] = {}  # the first draft updating a memory is its successor (a chain)
        for j in sorted(self._updates):
            if self._results[j].id in self._inserted:
                for older in self._updates[j]:
                    older_id = older if isinstance(older, str) else self._results[older].id
                    successor.setdefault(older_id, self._results[j].id)
        self._memories.mark_updated(sorted(successor.items()))
        return [self._results[j] for j in range(len(self._drafts))]

    def _neighbours(self, indices: range) -> dict[int, list[Near]]:
        """Per draft of the chunk: everything at least `near_threshold` similar in its project and
        category, stored before the batch or kept earlier in it."""
        groups: dict[tuple[str, str], list[int]] = {}
        for i in indices:
            if self._drafts[i].embedding is not None:
                groups.setdefault((self._drafts[i].project, self._drafts[i].category), []).append(i)
        out: dict[int, list[Near]] = {}
        for (project, category), members in groups.items():
            vectors = [self._drafts[i].embedding or () for i in members]
            stored = self._memories.nearest_many(project, category, vectors, min_similarity=self._lowest)
            for i, hits in zip(members, stored, strict=True):  # the batch's own rows come as drafts below
                out[i] = [(h.similarity, h.memory.id, h.memory.category, h.memory.content) for h in hits
                          if h.memory.id not in self._inserted]
            everyone = self._live.get((project, category), []) + members
            earlier = len(everyone) - len(members)
            pairs = self._memories.similar_pairs([self._drafts[i].embedding or () for i in everyone],
                                                 self._lowest, first=earlier)
            for a, b, similarity in pairs:
                was = self._drafts[everyone[a]]
                out.setdefault(everyone[b], []).append((similarity, everyone[a], was.category, was.content))
        return out

    @property
    def _lowest(self) -> float:
        """The similarity from which an earlier memory may be a duplicate or updated by a draft."""
        return min(self._threshold, UPDATE_COSINE)

    def _stating(self, indices: Sequence[int]) -> dict[int, list[Near]]:
        """Per kept draft: earlier memories sharing the words of one of its fact sentences (full
        text, stored before the batch) and the batch's earlier kept drafts of its (project,
        category); a long memory restating one fact is rarely near its predecessor by embedding."""
        groups: dict[tuple[str, str], list[tuple[int, list[str]]]] = {}
        for j in indices:
            for words in search_words(self._drafts[j].content):
                groups.setdefault((self._drafts[j].project, self._drafts[j].category), []).append((j, words))
        out: dict[int, list[Near]] = {}
        for (project, category), asked in groups.items():
            found = self._memories.stating(project, category, [w for _, w in asked], limit=STATING)
            for (j, _), memories in zip(asked, found, strict=True):
                known = {c[1] for c in out.get(j, ())}
                out.setdefault(j, []).extend((0.0, m.id, m.category, m.content) for m in memories
                                             if m.id not in self._inserted and m.id not in known)
            for j in dict.fromkeys(j for j, _ in asked):
                out[j] += [(0.0, i, d.category, d.content) for i in sorted(self._kept_at) if i < j
                           for d in (self._drafts[i],) if (d.project, d.category) == (project, category)]
        return out

    def _updated(self, j: int, near: Sequence[Near]) -> list[int | str]:
        """The earlier memories (or kept drafts) of draft `j`'s category whose facts it restates with
        another value (`fact_updates.updated`): close by embedding, or sharing its fact words."""
        draft = self._drafts[j]
        refs: dict[int | str, str] = {}
        for similarity, ref, category, content in near:
            close = similarity >= UPDATE_COSINE or similarity == 0.0
            earlier = not isinstance(ref, int) or (ref in self._kept_at and ref < j)
            if close and category == draft.category and earlier:
                refs.setdefault(ref, content)
        order = list(refs)
        return [order[i] for i in updated(draft.content, [refs[r] for r in order])]

    def _duplicate_of(self, draft: MemoryDraft, near: Sequence[Near]) -> tuple[int | str, Kind] | None:
        """The memory (or kept earlier draft) `draft` reinforces, with the reason; None to insert it."""
        candidates = sorted((c for c in near if c[0] >= self._threshold
                             and (not isinstance(c[1], int) or c[1] in self._kept_at)), key=lambda c: -c[0])
        for _, ref, category, content in candidates[:NEAREST]:
            exact = content_hash(category, content) == draft.content_hash
            if exact or same_facts(content, draft.content):
                return ref, "exact" if exact else "near"
        return None
