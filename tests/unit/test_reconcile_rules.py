"""Reconciling instructions by their wording (no model): the verdict for a new rule against an old one."""

from __future__ import annotations

import pytest

from chalicelib.graph.domain.reconcile_rules import CONTRADICTION, NO_CONFLICT, SUPERSEDES, judge, negative

CASES = [
    (
        "Never deploy the billing service on Fridays",
        "Always deploy the billing service on Fridays",
        CONTRADICTION,
    ),
    ("Don't merge without a review", "Always merge with a review", CONTRADICTION),
    (
        "From now on our team never deploys the billing service on Fridays",
        "Always deploy the billing service on Fridays",
        SUPERSEDES,
    ),
    ("We no longer squash commits when merging", "Always squash commits when merging", SUPERSEDES),
    ("Use SQS instead of Celery for background jobs", "Use Celery for background jobs", SUPERSEDES),
    ("Please use pnpm, not npm, for the web app", "Use npm for the web app", SUPERSEDES),
    (
        "From now on ship production deploys on Thursdays",
        "Always ship production deploys on Tuesdays",
        SUPERSEDES,
    ),
    ("Always squash commits when merging", "Always squash commits when merging.", NO_CONFLICT),
    ("From now on always run the tests before pushing", "Always run the linter before pushing", NO_CONFLICT),
    ("Always write commit messages in English", "Never deploy the billing service on Fridays", NO_CONFLICT),
]


@pytest.mark.parametrize(("new", "old", "expected"), CASES)
def test_the_verdict_follows_subject_polarity_and_replacement_wording(
    new: str, old: str, expected: str
) -> None:
    assert judge(new, old).verdict == expected


def test_a_shared_entity_and_one_more_shared_word_make_the_same_subject() -> None:
    new, old = "Never restart Hermes", "Always restart it after config changes"
    assert judge(new, old).verdict == NO_CONFLICT
    assert judge(new, old, ["Hermes"]).verdict == CONTRADICTION
    unrelated = judge("Never page Hermes", "Always restart it after config changes", ["Hermes"])
    assert unrelated.verdict == NO_CONFLICT


def test_a_contradiction_names_its_subject_and_both_sides() -> None:
    reason = judge(
        "Never deploy the billing service on Fridays", "Always deploy the billing service on Fridays"
    ).reason
    assert reason == (
        "same subject (bill, deploy, friday, service): opposite rules (old: always, new: "
        "never) and no explicit replacement"
    )


def test_a_contrasting_not_names_what_is_replaced_rather_than_forbidding() -> None:
    assert not negative("Use pnpm, not npm, for the web app")
    assert negative("Do not use npm for the web app")
