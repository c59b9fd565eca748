"""Reading a model's extraction answer defensively, and what the RLM bridge promotes."""

from __future__ import annotations

from chalicelib.learning.domain.insights import (
    Extraction,
    Insight,
    extraction_from_answer,
    lessons_to_promote,
)


def test_a_well_formed_answer_is_read_as_is() -> None:
    answer = {
        "significance": 0.82,
        "insights": [{"category": "decision", "content": "Use pgvector for search", "lines": [3, 4]}],
        "rules": [{"rule": "Always use yarn, not npm", "confidence": 0.9, "lines": [1]}],
    }

    extraction = extraction_from_answer(answer, line_count=10)

    assert extraction == Extraction(0.82, (Insight("decision", "Use pgvector for search", (3, 4)),),
                                    extraction.rules, "llm")  # type: ignore[union-attr]
    assert extraction is not None and extraction.rules[0].confidence == 0.9


def test_without_a_numeric_significance_the_answer_is_unusable() -> None:
    assert extraction_from_answer({"insights": []}, 5) is None
    assert extraction_from_answer({"significance": "high"}, 5) is None
    assert extraction_from_answer({"significance": True}, 5) is None


def test_out_of_range_values_are_clamped_and_unknown_parts_dropped() -> None:
    answer = {
        "significance": 1.7,
        "insights": [
            {"category": "gossip", "content": "x"},
            {"category": "Bugfix", "content": "  Fixed   the pager  ", "lines": [0, 2, 99, "3", True]},
            "not an object",
        ],
        "rules": [{"rule": "", "confidence": 0.5}, {"rule": "Never force-push", "confidence": 7}],
    }

    extraction = extraction_from_answer(answer, line_count=10)

    assert extraction is not None
    assert extraction.significance == 1.0
    assert extraction.insights == (Insight("bugfix", "Fixed the pager", (2,)),)
    assert [(r.rule, r.confidence) for r in extraction.rules] == [("Never force-push", 0.99)]


def test_only_significant_sessions_promote_and_only_mapped_categories() -> None:
    insights = (Insight("decision", "d"), Insight("pattern", "p"), Insight("learning", "l"),
                Insight("preference", "u"), Insight("architecture", "a"), Insight("bugfix", "b"))

    promoted = lessons_to_promote(Extraction(0.7, insights, (), "llm"))

    assert [(i.content, kind) for i, kind in promoted] == [
        ("d", "project-selection"), ("l", "error-handling"), ("u", "user-preference")]
    assert lessons_to_promote(Extraction(0.69, insights, (), "llm")) == []
