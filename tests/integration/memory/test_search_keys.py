"""Full-text search reads each memory's search key beside its words: a question naming an
identifier by its parts, a count in words, or the day something happened finds the memory."""

from __future__ import annotations

from tests.conftest import RunningApi
from tests.integration.memory.conftest import call

PROJECT = "github.com/acme/keys"
MEMORIES = [
    {"content": "Raised the pool size in memory_search.py to 40.", "created_at": "2023-03-01T10:00:00Z"},
    {"content": "Caroline: I went to the LGBTQ support group yesterday.",
     "created_at": "2023-05-08T13:56:00Z"},
    {"content": "The nightly import took three hours.", "created_at": "2023-04-02T09:00:00Z"},
    {"content": "We prefer small pull requests.", "created_at": "2023-02-01T09:00:00Z"},
]


def _stored(api: RunningApi) -> dict[str, str]:
    status, body = call(api, "POST", "/api/memory/batch", {"memories": [
        {"project": PROJECT, "category": "fact", **m} for m in MEMORIES]})
    assert status == 201, body
    return {m["content"]: memory_id for m, memory_id in zip(MEMORIES, body["ids"], strict=True)}


def _found(api: RunningApi, query: str) -> list[str]:
    status, body = call(api, "GET", "/api/memory/search", query=query, project=PROJECT, mode="text",
                        include_global="false")
    assert status == 200, body
    return [r["id"] for r in body["results"]]


def test_a_question_naming_what_a_memory_says_another_way_finds_it_by_its_search_key(api: RunningApi) -> None:
    ids = _stored(api)

    assert _found(api, "the memory search module")[:1] == [ids[MEMORIES[0]["content"]]]
    assert _found(api, "what happened on Sunday 7 May 2023")[:1] == [ids[MEMORIES[1]["content"]]]
    assert _found(api, "which job took 3 hours")[:1] == [ids[MEMORIES[2]["content"]]]


def test_a_search_key_names_no_word_its_memory_does_not_say_or_date(api: RunningApi) -> None:
    _stored(api)

    assert _found(api, "what happened in December 2024") == []


def _store_turns(api: RunningApi) -> list[str]:
    """A question and the reply to it, in one batch: their ids."""
    turns = ["Caroline: Did you go to the pottery workshop?", "Melanie: Yes! Last Friday, it was amazing."]
    status, body = call(api, "POST", "/api/memory/batch", {"memories": [
        {"project": PROJECT, "category": "conversation", "content": t, "created_at": "2023-07-03T10:00:00Z"}
        for t in turns]})
    assert status == 201, body
    return list(body["ids"])


def test_a_reply_is_found_by_the_words_of_what_it_replies_to_in_full_text(api: RunningApi) -> None:
    ids = _store_turns(api)

    with api.container.db.connection() as conn:  # the full-text index itself, before any re-ranking
        rows = conn.execute("SELECT id FROM memories WHERE search_tsv @@ plainto_tsquery('english', %s)",
                            ("pottery workshop",)).fetchall()
    assert {str(r["id"]) for r in rows} == set(ids)


def test_a_memory_whose_own_words_match_ranks_above_the_reply_keyed_by_it(api: RunningApi) -> None:
    question, reply = _store_turns(api)

    # Both match (the reply through the turn before it), the reply was written later, and a tie
    # would rank it first: the words of the turn itself count for more than its context's.
    assert _found(api, "pottery workshop")[:2] == [question, reply]
