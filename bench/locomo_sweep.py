"""LoCoMo weight and recency settings, swept in process on the database `itachi up` filled.

Restarting the server for every setting costs minutes on a loaded box and changes nothing the
settings touch: the score is computed by the search statement alone. So the sweep runs the
server's own statement (`PostgresMemorySearch.search`, the query redacted and cut as
`MemoryService.search_scopes` does) with each setting's `SearchWeights`, on the same memories,
with each question embedded once by the same local model. The first setting is also run here
and compared with its ranking through the API (`agreement`), so a difference between the two
paths shows in the output instead of in the figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from bench.locomo_data import Conversation
from bench.locomo_report import asked

if TYPE_CHECKING:
    from chalicelib.memory.domain.search_scoring import SearchWeights

Chosen = list[tuple[int, Conversation]]
Setting = tuple[float, float, float]  # vector weight, text weight, recency weight


def label(setting: Setting) -> str:
    vector, text, recency = setting
    return f"hybrid (vector {vector}, text {text}, recency {recency})"


def sweep(url: str, chosen: Chosen, settings: list[Setting], limit: int = 20
          ) -> Iterator[tuple[Setting, dict[str, list[str]]]]:
    """For each setting, question id -> ranked memory ids, as the API would answer in hybrid mode
    with these weights and the deployment's re-rankings (`wiring.memory.search_weights`, as `itachi
    up` runs)."""
    from dataclasses import replace

    from chalicelib.kernel.settings import Settings
    from chalicelib.wiring.memory import search_weights

    deployed = search_weights(Settings.model_validate({"database_url": url}))
    weights = [replace(deployed, vector=v, text=t, recency=r) for v, t, r in settings]
    yield from zip(settings, rankings(url, chosen, weights, limit), strict=True)


def rankings(url: str, chosen: Chosen, settings: list[SearchWeights], limit: int = 20
             ) -> Iterator[dict[str, list[str]]]:
    """For each `SearchWeights`, question id -> ranked memory ids in hybrid mode, re-rankings included."""
    from chalicelib.kernel.database import Database
    from chalicelib.kernel.redaction import redact
    from chalicelib.memory.adapters.local_embedder import LocalEmbedder
    from chalicelib.memory.adapters.memory_search import PostgresMemorySearch
    from chalicelib.memory.adapters.search_statistics import SearchStatistics
    from chalicelib.memory.domain.memory_model import SearchScope
    from chalicelib.memory.services.memory_service import MAX_QUERY_CHARS

    questions = [(conv, q, redact(q.text).strip()[:MAX_QUERY_CHARS]) for _, conv, q in asked(chosen)]
    vectors = LocalEmbedder().embed([text for _, _, text in questions])
    features, db = SearchStatistics(), Database(url)
    try:
        for setting in settings:
            weights = setting.normalised()
            ranked: dict[str, list[str]] = {}
            with db.connection() as conn:
                search = PostgresMemorySearch(conn, features)
                for (conv, q, text), vector in zip(questions, vectors, strict=True):
                    hits = search.search(text, vector, SearchScope((f"locomo-{conv.sample_id}",)),
                                         mode="hybrid", limit=limit, weights=weights)
                    ranked[q.qid] = [h.id for h in hits]
            yield ranked
    finally:
        db.close()


def agreement(api: dict[str, list[str]], here: dict[str, list[str]], k: int = 10) -> float:
    """The share of questions whose top k is the same set through the API and in process."""
    same = sum(set(api[qid][:k]) == set(here.get(qid, [])[:k]) for qid in api)
    return same / max(1, len(api))

