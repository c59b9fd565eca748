"""The instruction store's one reconciler: restatements reinforce, changes supersede, clashes flag,
and a rule is never merged with its negation."""

from __future__ import annotations

from chalicelib.learning.domain.rule_reconciliation import Known, decide


def known(text: str, similarity: float, confidence: float = 0.95, file: str | None = None) -> Known:
    return Known("old", text, similarity, confidence, file)


def test_a_restatement_reinforces_the_rule_it_repeats() -> None:
    decision = decide("Always use yarn, not npm", 0.6, [known("Always use yarn, not npm", 0.99)])

    assert decision.verdict == "reinforce"


def test_a_rule_and_its_negation_are_never_merged_whatever_their_similarity() -> None:
    near = decide("Never use yarn for installs", 0.95, [known("Always use yarn for installs", 0.95)])
    far = decide("Never use yarn for package installs", 0.95,
                 [known("Always use yarn for package installs", 0.5)])

    assert near.verdict == "supersede"
    assert far.verdict == "flag"  # opposite rules with no explicit replacement: a person decides


def test_an_explicit_replacement_supersedes_a_rule_on_the_same_subject() -> None:
    decision = decide("From now on ship production deploys on Thursdays", 0.95,
                      [known("Always ship production deploys on Tuesdays", 0.6)])

    assert decision.verdict == "supersede"


def test_a_file_rule_never_silently_replaces_a_rule_from_elsewhere() -> None:
    learned = [known("Always use yarn for package installs", 0.8, 0.95)]
    same_file = [known("Always use yarn for package installs", 0.8, 0.9, file="AGENTS.md")]

    assert decide("Always use npm for package installs", 0.99, learned, file="AGENTS.md").verdict == "flag"
    assert decide("Always use npm for package installs", 0.9, same_file,
                  file="AGENTS.md").verdict == "supersede"


def test_a_different_subject_is_a_new_rule() -> None:
    assert decide("Keep lines under 110 characters", 0.9, [known("Use UTC timestamps", 0.3)]).verdict == "new"
