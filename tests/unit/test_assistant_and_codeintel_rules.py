"""The deterministic readers behind the assistant and the code-intelligence workers (no model)."""

from __future__ import annotations

from chalicelib.assistant.domain.personality import heuristic_traits, rank
from chalicelib.assistant.domain.task_intent import looks_like_request, parse_offer_data, read_intent
from chalicelib.assistant.domain.user_facts import UserFact, stated_facts, worth_reading
from chalicelib.codeintel.domain.cross_project import Learned, confirmed_groups
from chalicelib.codeintel.domain.edit_patterns import EditRow, analyze
from chalicelib.codeintel.domain.session_digest import digest
from chalicelib.codeintel.domain.transcript_chunks import chunks

KNOWN = ("github.com/acme/billing", "github.com/acme/shop", "webapp")


def test_a_request_for_work_names_its_project_and_becomes_an_imperative_prompt() -> None:
    intent = read_intent("can you fix the flaky login test in billing?", KNOWN, None)

    assert intent is not None
    assert (intent.project, intent.prompt) == (
        "github.com/acme/billing",
        "Fix the flaky login test in billing",
    )


def test_a_request_without_a_known_project_uses_the_topics_project_or_offers_nothing() -> None:
    assert read_intent("please add retries to the uploader", KNOWN, None) is None
    intent = read_intent("please add retries to the uploader", KNOWN, "webapp")
    assert intent is not None and intent.project == "webapp"


def test_questions_and_commands_are_not_requests_for_work() -> None:
    assert not looks_like_request("what is queued in billing?")
    assert not looks_like_request("/task billing fix it")
    assert looks_like_request("Could you please refactor the billing client")


def test_offer_buttons_carry_the_offer_and_the_choice_and_nothing_else_parses() -> None:
    assert parse_offer_data("offer:abc:create") == ("abc", True)
    assert parse_offer_data("offer:abc:cancel") == ("abc", False)
    assert parse_offer_data("offer:abc:run") is None and parse_offer_data("bp:abc:create") is None


def test_first_person_preferences_and_identity_are_read_from_a_message() -> None:
    facts = stated_facts("I prefer tabs over spaces. My name is Ada; never push on Fridays!")

    assert facts == [
        UserFact("preference", "The user prefers tabs over spaces"),
        UserFact("identity", "The user's name is Ada"),
        UserFact("preference", "The user wants: never push on Fridays"),
    ]
    assert not worth_reading("what is the status of the deploy?")


def test_terse_polite_messages_give_terse_and_polite_traits_ranked_by_confidence_and_reinforcement() -> None:
    traits = heuristic_traits(["thanks, ship it", "please retry", "ok thanks"] * 4)

    assert [t.text for t in traits] == [
        "Writes tersely: prefers short, direct answers",
        "Polite and appreciative in tone",
    ]
    assert rank([("a", 0.9, 1), ("b", 0.5, 3)]) == [("b", 0.5, 3), ("a", 0.9, 1)]


def test_files_edited_in_the_same_sessions_are_reported_as_changed_together() -> None:
    edits = [EditRow(f"s{i}", f, 3, 1, False) for i in range(3) for f in ("a.py", "b.py")]

    texts = [p.text for p in analyze(edits)]

    assert "Changed together: a.py and b.py (in 3 sessions)" in texts
    assert texts[0] == "Hot files: a.py (3 edits), b.py (3 edits)"


def test_a_lesson_in_one_project_only_is_not_proposed() -> None:
    items = [
        Learned("1", "a", "project_rule", "Run migrations before tests", 0.8),
        Learned("2", "a", "task_lesson", "Run the migrations before the tests", 0.7),
        Learned("3", "b", "project_rule", "Prefer small commits", 0.8),
    ]

    assert confirmed_groups(items) == []


def test_a_rule_and_its_negation_in_two_projects_are_never_one_proposed_global_rule() -> None:
    items = [
        Learned("1", "a", "project_rule", "Always use yarn", 0.9),
        Learned("2", "b", "project_rule", "Never use yarn", 0.9),
        Learned("3", "c", "project_rule", "Never use yarn.", 0.8),
    ]

    (group,) = confirmed_groups(items)

    assert [i.id for i in group.items] == ["2", "3"]


def test_the_digest_takes_the_first_request_as_goal_and_decisions_from_the_transcript() -> None:
    synthesis = digest(
        [
            {"role": "user", "text": "Speed up the export."},
            {"role": "assistant", "text": "We decided to stream rows. A follow-up is to add a test."},
        ],
        ["export.py"],
        None,
        None,
    )

    assert synthesis.goal == "Speed up the export."
    assert synthesis.decisions == ("We decided to stream rows.",)
    assert synthesis.open_ends == ("A follow-up is to add a test.",)


def test_transcript_chunks_keep_whole_turns_and_redact_each() -> None:
    out = chunks(
        [{"role": "user", "text": "secret-1 " * 200}, {"role": "assistant", "text": "done"}],
        lambda t: t.replace("secret-1", "[REDACTED]"),
    )

    assert all(len(c) <= 1500 for c in out) and "secret-1" not in "".join(out)
    assert out[-1].endswith("assistant: done")
