"""The search statement's ranking, on crafted rows: the score is computed only in SQL, so its
parts are checked there — recency, term rarity, the weights and the clamped cosine.

Vectors are basis vectors, so every cosine is exactly 1, 0 or -1; texts are chosen so each
memory holds a known share of the query's terms.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container
from chalicelib.memory.adapters.memory_bulk_load import bulk_load
from chalicelib.memory.adapters.memory_search import PAIR_SHARE
from chalicelib.memory.adapters.search_statistics import SearchStatistics
from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.domain.search_scoring import SearchWeights
from tests.fakes.memory_embedders import FixedEmbedder
from tests.integration.memory.conftest import container_with

DIM = 384
NOW = datetime.now(UTC)


def basis(i: int, sign: float = 1.0) -> list[float]:
    return [sign if j == i else 0.0 for j in range(DIM)]


@pytest.fixture
def searcher(tmp_path: Path, database_url: str) -> Iterator[Container]:
    queries = {"deploy at noon": basis(0), "quartz lantern": basis(0), "kerberos config": basis(5),
               "the quartz lantern we bought on 8 May, 2023": basis(0)}
    container = container_with(tmp_path, database_url, FixedEmbedder(queries))
    yield container
    container.close()


def load(container: Container, rows: list[MemoryDraft]) -> None:
    bulk_load(container.db, rows)  # rebuilds the index and runs ANALYZE: term statistics exist


def test_an_older_memory_loses_exactly_the_recency_weights_share_of_its_score(searcher: Container) -> None:
    load(searcher, [
        MemoryDraft("r", "fact", "Fresh: the deploy runs at noon", embedding=basis(0), created_at=NOW),
        MemoryDraft("r", "fact", "Old: the deploy runs at noon", embedding=basis(0),
                    created_at=NOW - timedelta(days=180)),
    ])
    weights = SearchWeights(recency=0.1, half_life_days=90)

    fresh, old = searcher.memory.search("deploy at noon", "r", mode="vector", weights=weights).hits
    level = searcher.memory.search("deploy at noon", "r", mode="vector",
                                   weights=SearchWeights(recency=0)).hits

    assert fresh.content.startswith("Fresh") and fresh.score == pytest.approx(1.0, abs=1e-4)
    assert old.score == pytest.approx(1 - 0.1 + 0.1 * 0.5 ** (180 / 90), abs=1e-4)  # two half-lives: 0.925
    assert [h.score for h in level] == pytest.approx([1.0, 1.0], abs=1e-6)


def test_a_rare_query_term_outweighs_a_common_one(searcher: Container) -> None:
    common = [MemoryDraft("t", "fact", f"Note {i}: the config file lives in etc", embedding=basis(1),
                          created_at=NOW) for i in range(300)]
    load(searcher, [*common,
                    MemoryDraft("t", "fact", "Kerberos tickets expire after ten hours", embedding=basis(2),
                                created_at=NOW),
                    MemoryDraft("t", "fact", "Kerberos settings sit in the config of the realm",
                                embedding=basis(3), created_at=NOW)])

    hits = searcher.memory.search("kerberos config", "t", mode="text", limit=5,
                                  weights=SearchWeights(recency=0)).hits

    both, rare, *plain = hits
    assert both.content.startswith("Kerberos settings") and both.score == pytest.approx(1.0, abs=1e-6)
    assert rare.content.startswith("Kerberos tickets") and rare.score > 0.9  # idf(kerberos) >> idf(config)
    assert plain and all(h.content.startswith("Note") and h.score < 0.1 for h in plain)


@pytest.mark.parametrize(("vector_weight", "text_weight"), [(0.7, 0.3), (0.2, 0.8)])
def test_hybrid_scores_are_the_weighted_sum_of_clamped_cosine_and_term_coverage(
        searcher: Container, vector_weight: float, text_weight: float) -> None:
    load(searcher, [
        MemoryDraft("w", "fact", "Alpha bravo charlie", embedding=basis(0), created_at=NOW),
        MemoryDraft("w", "fact", "A quartz lantern by the door", embedding=basis(1), created_at=NOW),
        MemoryDraft("w", "fact", "Delta echo foxtrot", embedding=basis(0, -1.0), created_at=NOW),
    ])
    weights = SearchWeights(vector=vector_weight, text=text_weight, recency=0)

    hits = {h.content: h.score for h in searcher.memory.search("quartz lantern", "w", weights=weights).hits}
    opposite = searcher.memory.search("quartz lantern", "w", mode="vector", weights=weights).hits

    assert hits["Alpha bravo charlie"] == pytest.approx(vector_weight, abs=1e-6)  # cosine 1, no terms
    assert hits["A quartz lantern by the door"] == pytest.approx(text_weight, abs=1e-6)  # cosine 0, all terms
    assert max(hits, key=lambda c: hits[c]) == ("Alpha bravo charlie" if vector_weight > text_weight
                                                 else "A quartz lantern by the door")
    negative = next(h for h in opposite if h.content == "Delta echo foxtrot")
    assert negative.score == 0.0 and not math.isnan(negative.score)  # a cosine of -1 is clamped to 0


def test_the_memories_stored_next_to_a_strong_hit_join_it_at_the_neighbours_share_of_its_score(
        searcher: Container) -> None:
    start = NOW - timedelta(days=3)
    turns = ["Mira: which lantern should I buy for the camping trip?",
             "Omar: the quartz lantern, it is great",
             "Mira: bought it yesterday, thanks", "Omar: enjoy the trip!"]
    load(searcher, [
        *(MemoryDraft("n", "conversation", text, embedding=basis(10 + i),
                      created_at=start + timedelta(seconds=i)) for i, text in enumerate(turns)),
        MemoryDraft("n", "conversation", "Mira: a day later, unrelated", embedding=basis(20),
                    created_at=start + timedelta(hours=3)),
        MemoryDraft("other", "conversation", "Dana: in another project", embedding=basis(21),
                    created_at=start + timedelta(seconds=2)),
    ])
    plain, low, high = (SearchWeights(recency=0, neighbours=share) for share in (0.0, 0.2, 0.7))

    alone = searcher.memory.search("quartz lantern", "n", mode="text", limit=10, weights=plain).hits
    weak = searcher.memory.search("quartz lantern", "n", mode="text", limit=10, weights=low).hits
    strong = searcher.memory.search("quartz lantern", "n", mode="text", limit=10, weights=high).hits

    assert [h.content for h in alone] == [turns[1], turns[0]] and 0.2 < alone[1].score < 0.7
    # A neighbour joins at the share of the best hit's score and the rest of its own: the turn after
    # it holds no query term and comes in at the share alone; the turn before matches the query
    # too, so it ranks above them. Nothing from hours later or elsewhere. Two each side: the second
    # turn after the best hit comes in too (the newer first on a tie).
    assert [(h.content, h.score) for h in weak] == [  # scores are rounded to 6 places
        (turns[1], alone[0].score),
        (turns[0], pytest.approx(0.2 * alone[0].score + 0.8 * alone[1].score, abs=1e-6)),
        (turns[3], pytest.approx(0.2 * alone[0].score, abs=1e-6)),
        (turns[2], pytest.approx(0.2 * alone[0].score, abs=1e-6))]
    assert [h.content for h in strong] == [turns[1], turns[0], turns[3], turns[2]]
    assert [h.score for h in strong[1:]] == pytest.approx(
        [0.7 * alone[0].score + 0.3 * alone[1].score] + [0.7 * alone[0].score] * 2, abs=1e-6)
    limited = searcher.memory.search("quartz lantern", "n", mode="text", limit=2, weights=high).hits
    assert len(limited) == 2


def test_a_query_naming_a_date_favours_the_memories_stored_near_it_by_the_dates_weight(
        searcher: Container) -> None:
    load(searcher, [
        MemoryDraft("d", "fact", "We bought the quartz lantern", embedding=basis(0),
                    created_at=datetime(2023, 9, 1, 12, tzinfo=UTC)),
        MemoryDraft("d", "fact", "Bought a quartz lantern today", embedding=basis(0),
                    created_at=datetime(2023, 5, 8, 18, tzinfo=UTC)),
    ])
    query = "the quartz lantern we bought on 8 May, 2023"
    plain = searcher.memory.search(query, "d", mode="vector", weights=SearchWeights(recency=0)).hits
    dated = searcher.memory.search(query, "d", mode="vector",
                                   weights=SearchWeights(recency=0, dates=0.3)).hits

    assert [h.score for h in plain] == pytest.approx([1.0, 1.0], abs=1e-6)
    assert dated[0].content == "Bought a quartz lantern today"
    assert dated[0].score == pytest.approx(1.0, abs=1e-6)
    # 115 days after a one-day window: closeness 0.5 ** 115 is nothing, the score keeps 1 - 0.3.
    assert dated[1].score == pytest.approx(0.7, abs=1e-4)
    undated = searcher.memory.search("quartz lantern", "d", mode="vector",
                                     weights=SearchWeights(recency=0, dates=0.3)).hits
    assert [h.score for h in undated] == pytest.approx([1.0, 1.0], abs=1e-6)


def test_the_memories_written_next_to_a_strong_hit_join_it_when_an_import_stored_them_at_one_time(
        searcher: Container) -> None:
    imported = NOW - timedelta(days=2)
    turns = [f"Speaker {i % 2}: small talk number {i}" for i in range(120)]
    turns[60] = "Mira: which lantern should I buy for the camping trip?"
    turns[61] = "Omar: the quartz lantern, it is great"
    turns[62] = "Mira: bought it yesterday, thanks"
    load(searcher, [MemoryDraft("b", "conversation", text, embedding=basis(10 + i), created_at=imported)
                    for i, text in enumerate(turns)])

    bare = searcher.memory.search("quartz lantern", "b", mode="text", limit=10,
                                  weights=SearchWeights(recency=0)).hits
    ranked = searcher.memory.search("quartz lantern", "b", mode="text", limit=10,
                                    weights=SearchWeights(recency=0, neighbours=0.7, dates=0.3)).hits

    assert [h.content for h in bare] == [turns[61], turns[60]]
    # Write order, not the one timestamp they share: the turns written around the two hits join;
    # both hits stay, the best first, neither scored lower than without re-ranking.
    assert ranked[0] == bare[0]
    assert {h.content for h in ranked} == {turns[58], turns[59], turns[60], turns[61], turns[62], turns[63]}
    after = {h.id: h.score for h in ranked}
    assert all(after[h.id] >= h.score for h in bare)


def test_a_neighbour_comes_from_the_hits_own_session_when_two_sessions_write_at_once(
        searcher: Container) -> None:
    start = NOW - timedelta(hours=1)
    # Two terminals in one project: their memories interleave in write order, seconds apart.
    writes = [("s1", "Decided: the quartz lantern ships in the camping kit"),
              ("s2", "Renamed the billing cron to nightly-invoices"),
              ("s1", "The kit's packing list is in docs/kit.md"),
              ("s2", "Billing retries now back off exponentially"),
              (None, "A note written through the API, in no session")]
    load(searcher, [MemoryDraft("t", "insight", text, embedding=basis(10 + i), session_id=session,
                                created_at=start + timedelta(seconds=i))
                    for i, (session, text) in enumerate(writes)])

    hits = searcher.memory.search("quartz lantern", "t", mode="text", limit=10,
                                  weights=SearchWeights(recency=0, neighbours=0.7)).hits

    # The hit's session's next write joins it; the other terminal's, written in between, and the
    # session-less note do not.
    assert [h.content for h in hits] == [writes[0][1], writes[2][1]]


def test_a_date_the_query_names_leaves_an_import_stored_within_a_day_ranked_as_without_it(
        searcher: Container) -> None:
    started = datetime(2023, 5, 8, 23, 30, tzinfo=UTC)
    load(searcher, [
        MemoryDraft("i", "fact", "Imported first: the quartz lantern", embedding=basis(0),
                    created_at=started),
        MemoryDraft("i", "fact", "Imported last: the quartz lantern", embedding=basis(0),
                    created_at=started + timedelta(hours=1)),
    ])
    query = "the quartz lantern we bought on 8 May, 2023"

    bare = searcher.memory.search(query, "i", mode="vector", weights=SearchWeights(recency=0)).hits
    dated = searcher.memory.search(query, "i", mode="vector",
                                   weights=SearchWeights(recency=0, dates=0.3)).hits

    assert [(h.content, h.score) for h in dated] == [(h.content, h.score) for h in bare]
    assert bare[0].content.startswith("Imported last")  # equal scores: the newer first


def test_a_memory_longer_than_the_average_keeps_less_of_its_text_score_by_the_length_weight(
        searcher: Container) -> None:
    filler = " ".join(f"word{n}" for n in range(120))  # 120 distinct lexemes more than its short twin
    load(searcher, [
        MemoryDraft("l", "fact", "The quartz lantern", embedding=basis(1), created_at=NOW),
        MemoryDraft("l", "fact", f"The quartz lantern, and then {filler}", embedding=basis(2),
                    created_at=NOW),
        *(MemoryDraft("l", "fact", f"note {n} about the weather", embedding=basis(3 + n), created_at=NOW)
          for n in range(6)),
    ])
    with searcher.db.connection() as conn:  # the table is small: the sample is all of it
        row = conn.execute("SELECT avg(length(search_tsv))::float8 AS a FROM memories").fetchone()
    assert row is not None
    average = row["a"]

    short, long = searcher.memory.search("quartz lantern", "l", mode="text",
                                         weights=SearchWeights(recency=0)).hits[:2]

    assert short.content == "The quartz lantern" and short.score == pytest.approx(1.0, abs=1e-6)
    lexemes = 2 + 120  # "quartz", "lantern" and the filler ("the", "and", "then" are stop words)
    assert long.score == pytest.approx((average / lexemes) ** 0.25, abs=1e-3)


def test_two_query_words_next_to_each_other_in_a_memory_add_the_pair_share_of_the_commoner_ones_idf(
        searcher: Container) -> None:
    load(searcher, [
        MemoryDraft("p", "fact", "A red lantern hangs by the door", embedding=basis(1), created_at=NOW),
        MemoryDraft("p", "fact", "The lantern hangs by the red door", embedding=basis(2), created_at=NOW),
        *(MemoryDraft("p", "fact", f"note {n}: a red door", embedding=basis(3 + n), created_at=NOW)
          for n in range(6)),
    ])
    query = "red lantern for sale"
    with searcher.db.connection() as conn:  # the statement's own term parameters for this query
        terms = SearchStatistics().open_search(conn, query, ("p",), 40, vector=False)
    idf = dict(zip(terms["term_tqs"], terms["term_idfs"], strict=True))
    assert terms["pair_tqs"][0] == "'red' <-> 'lantern' | 'lantern' <-> 'red'"

    hits = {h.content: h.score for h in searcher.memory.search(query, "p", mode="text",
                                                                 weights=SearchWeights(recency=0)).hits}

    together, apart = hits["A red lantern hangs by the door"], hits["The lantern hangs by the red door"]
    held = idf["'red'"] + idf["'lantern'"]
    assert apart == pytest.approx(held / terms["total_idf"], abs=1e-4)  # both words, not next to each other
    assert together == pytest.approx((held + PAIR_SHARE * min(idf["'red'"], idf["'lantern'"]))
                                     / terms["total_idf"], abs=1e-4)
