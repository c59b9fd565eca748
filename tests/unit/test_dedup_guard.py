"""Near duplicates merge only when they state the same facts."""

from __future__ import annotations

import pytest

from chalicelib.memory.domain.dedup_guard import (
    polarity,
    reconcile,
    salient_tokens,
    same_facts,
    substituted,
    swapped,
)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Always run the tests before pushing.", "Run the tests before you push, always."),
        ("Use uv instead of pip for installs.", "Prefer uv over pip when installing packages."),
        ("The API timeout is 30 seconds.", "The timeout of the API is 30 seconds"),
        ("Deploy with `make deploy` from main.", "From main, deploy using `make deploy`."),
        ("Python 3.11 is required.", "We require Python 3.11."),
        ("Don't use tabs for indentation.", "Never use tabs to indent."),
    ],
)
def test_rewordings_of_the_same_statement_may_merge(a: str, b: str) -> None:
    assert same_facts(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Release is planned for 3 May 2026.", "Release is planned for 4 May 2026."),
        ("Release is planned for 2026-05-03.", "Release is planned for 2026-05-04."),
        ("The meeting moved to Tuesday.", "The meeting moved to Thursday."),
        ("The meeting is next week.", "The meeting is next month."),
        ("The API timeout is 30 seconds.", "The API timeout is 60 seconds."),
        ("We keep three replicas.", "We keep five replicas."),
        ("Alice owns the billing service.", "Bob owns the billing service."),
        ("Ask Alice to review the billing service.", "Ask Bob to review the billing service."),
        ("Settings live in config.toml.", "Settings live in config.yaml."),
        ("Use psycopg_pool for connections.", "Use SQLAlchemy for connections."),
        ("Always squash commits.", "Never squash commits."),
        ("Use the staging database for tests.", "Do not use the staging database for tests."),
        ("Bump to v1.2.3.", "Bump to v1.2.4."),
        ("Use pnpm, not npm.", "Use npm, not pnpm."),
    ],
)
def test_statements_differing_in_a_date_number_name_or_polarity_never_merge(a: str, b: str) -> None:
    assert not same_facts(a, b)


def test_a_capitalised_sentence_opener_is_not_taken_for_a_name() -> None:
    assert salient_tokens("Always use tabs. Never use spaces.") == frozenset()
    assert "python" in salient_tokens("Python is the language.")


def test_lower_case_modal_may_is_not_a_month_but_capitalised_may_is() -> None:
    assert "may" not in salient_tokens("you may deploy on fridays")
    assert "may" in salient_tokens("deploy on 3 May")


def test_double_negation_keeps_polarity_even() -> None:
    assert polarity("never skip the tests") == 1
    assert polarity("don't never skip") == 0
    assert polarity("run the tests") == 0


def test_a_contradiction_never_reinforces_and_the_more_trusted_statement_wins() -> None:
    old, new = "Always use yarn, not npm", "Always use npm, not yarn"
    assert reconcile(new, old, new_trust=0.95, old_trust=0.95) == "supersede"
    assert reconcile(new, old, new_trust=0.6, old_trust=0.95) == "flag"
    assert reconcile("Run the tests with -n 8", "Run the tests with -n 4", new_trust=0.7, old_trust=0.7) \
        == "supersede"
    assert reconcile("Never use tabs to indent", "Don't use tabs for indentation", new_trust=0.1,
                     old_trust=0.9) == "reinforce"
    assert reconcile("Always use yarn 4, not npm, in web/", old, new_trust=0.6, old_trust=0.9) == "reinforce"
    assert reconcile("Use yarn", "Always use yarn 4, not npm, in web/", new_trust=0.6, old_trust=0.9) \
        == "reinforce"
    assert reconcile("Use npm", old, new_trust=0.95, old_trust=0.95) == "supersede"
    assert reconcile("Never run the migrations by hand", "Always run the migrations by hand",
                     new_trust=0.95, old_trust=0.95) == "supersede"


@pytest.mark.parametrize("text", [
    "For the web app, always use yarn, not npm, because npm rewrites the lockfile",
    "Never run the migrations by hand, not even once: run make migrate",
    "Always use yarn, not npm",
])
def test_a_statement_restated_word_for_word_reinforces_itself(text: str) -> None:
    assert reconcile(text, text, new_trust=0.6, old_trust=0.95) == "reinforce"


def test_naming_a_negated_word_again_does_not_hide_a_real_contradiction() -> None:
    old = "For the web app, always use yarn, not npm, because npm rewrites the lockfile"
    assert reconcile("Use npm for the web app", old, new_trust=0.95, old_trust=0.6) == "supersede"
    assert reconcile(old, "Use npm for the web app", new_trust=0.95, old_trust=0.95) == "supersede"


@pytest.mark.parametrize(("new", "old"), [
    ("Always use npm for package installs", "Always use yarn for package installs"),
    ("Never squash commits before merging", "Always squash commits before merging"),
    ("Don't deploy on Fridays", "Deploy on Fridays"),
])
def test_a_rule_never_reinforces_its_negation_or_a_rule_naming_another_thing(new: str, old: str) -> None:
    assert reconcile(new, old, new_trust=0.95, old_trust=0.95) == "supersede"
    assert reconcile(new, old, new_trust=0.6, old_trust=0.95) == "flag"


def test_a_refinement_that_only_adds_words_is_no_substitution() -> None:
    assert not substituted("Always use yarn 4 for package installs in web/", "Always use yarn")
    assert substituted("Use npm for installs", "Use yarn for installs")
    assert swapped("Use npm for installs", "Use yarn for installs")
    assert not swapped("Deploy the api on Tuesdays", "Deploy the web app on Tuesdays")
