"""The query's terms from the planner's statistics: IDF, rarity order and the selective ones."""

from __future__ import annotations

import math

from chalicelib.memory.domain.query_terms import (
    CANDIDATE_TERMS,
    MIN_SHARE,
    TermStatistics,
    quoted,
    term_parameters,
)


def test_before_any_analyze_every_term_weighs_one_and_the_first_eight_pick_candidates() -> None:
    lexemes = [f"term{n:02d}" for n in range(10)]
    params = term_parameters(lexemes, TermStatistics.from_pg_stats(None, None, 0))
    assert params["term_idfs"] == [1.0] * 10 and params["total_idf"] == 10.0
    assert params["tq"] == " | ".join(quoted(lex) for lex in sorted(lexemes)[:CANDIDATE_TERMS])
    assert params["tq_all"] == " | ".join(quoted(lex) for lex in sorted(lexemes))


def test_terms_rank_rarest_first_and_an_unlisted_term_gets_half_the_smallest_listed_share() -> None:
    # most_common_elem_freqs: one per element, then their minimum, maximum and the null frequency
    stats = TermStatistics.from_pg_stats(["deploy", "backup"], [0.4, 0.02, 0.02, 0.4, 0.0], 10_000)
    params = term_parameters(["deploy", "backup", "kubernetes"], stats)
    assert params["term_tqs"] == ["'kubernetes'", "'backup'", "'deploy'"]
    assert params["term_idfs"] == [math.log(1 / 0.01), math.log(1 / 0.02), math.log(1 / 0.4)]
    assert math.isclose(params["total_idf"], sum(params["term_idfs"]))


def test_terms_pick_candidates_while_their_expected_rows_stay_in_budget_or_the_rarest_is_rare() -> None:
    stats = TermStatistics.from_pg_stats(["common", "usual", "rare"], [0.5, 0.3, 0.0001, 0.0001, 0.5, 0.0],
                                         100_000)
    # rare: 10 rows expected, usual: 30,000 more (over the 1,500 budget): only rare picks candidates
    assert term_parameters(["common", "usual", "rare"], stats)["tq"] == "'rare'"
    # the rarest alone is held by 3 % of memories (over budget but under the 5 % share): it still picks
    assert term_parameters(["usual", "pretty"], TermStatistics.from_pg_stats(
        ["usual", "pretty"], [0.3, 0.03, 0.03, 0.3, 0.0], 100_000))["tq"] == "'pretty'"
    # only common terms: none picks candidates, every one still scores
    only_common = term_parameters(["common", "usual"], stats)
    assert only_common["tq"] is None and only_common["tq_all"] == "'usual' | 'common'"


def test_a_lexeme_is_quoted_with_its_backslashes_and_quotes_escaped_and_shares_never_reach_zero() -> None:
    assert quoted("it's") == "'it''s'" and quoted("a\\b") == "'a\\\\b'"
    stats = TermStatistics.from_pg_stats(["zero"], [0.0], 50)
    assert stats.shares == {"zero": MIN_SHARE} and stats.unlisted == MIN_SHARE


def test_words_next_to_each_other_in_the_query_form_pairs_weighed_by_the_commoner_words_idf() -> None:
    # lexemes in the query's order ("caroline research adoption agency", a word repeated);
    # each pair matches the two words next to each other in a memory, in either order
    stats = TermStatistics.from_pg_stats(["research", "caroline"], [0.2, 0.1, 0.1, 0.2, 0.0], 1_000)
    params = term_parameters(["caroline", "research", "adopt", "agenc", "adopt"], stats)
    idf = dict(zip((tq.strip("'") for tq in params["term_tqs"]), params["term_idfs"], strict=True))
    assert params["pair_tqs"] == ["'caroline' <-> 'research' | 'research' <-> 'caroline'",
                                  "'research' <-> 'adopt' | 'adopt' <-> 'research'",
                                  "'adopt' <-> 'agenc' | 'agenc' <-> 'adopt'"]
    assert params["pair_idfs"] == [idf["research"], idf["research"], min(idf["adopt"], idf["agenc"])]
    assert idf["research"] < idf["caroline"]


def test_a_query_of_one_word_or_one_word_repeated_has_no_pairs() -> None:
    stats = TermStatistics.from_pg_stats(None, None, 0)
    for lexemes in ([], ["deploy"], ["deploy", "deploy"]):
        params = term_parameters(lexemes, stats)
        assert params["pair_tqs"] == [] and params["pair_idfs"] == []
