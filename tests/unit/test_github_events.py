"""Which GitHub deliveries ask for a task, and the signature that admits them."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from chalicelib.triggers.domain.github_events import Delivery, Issue, mentions, signature_valid, trigger_of

pytestmark = pytest.mark.unit

ISSUE = Issue("Acme/Billing", "https://github.com/Acme/Billing.git", 7, "Totals round down", "details",
              "https://github.com/Acme/Billing/issues/7")


@pytest.mark.parametrize(("text", "expected"), [
    ("@itachi fix this", True), ("please, @Itachi.", True), ("(@itachi)", True),
    ("mail itachi@example.com", False), ("@itachi-bot look", False), ("@@itachi", False),
    ("@itachis", False), ("no mention", False)])
def test_a_mention_is_the_name_as_a_word_of_its_own(text: str, expected: bool) -> None:
    assert mentions(text, "@itachi") is expected


def test_the_signature_is_the_hmac_of_the_exact_body_under_the_secret() -> None:
    body = b'{"action": "labeled"}'
    good = "sha256=" + hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()

    assert signature_valid("s3cret", body, good)
    assert not signature_valid("s3cret", body + b" ", good)
    assert not signature_valid("other", body, good)
    assert not signature_valid("", body, "sha256=" + hmac.new(b"", body, hashlib.sha256).hexdigest())
    assert not signature_valid("s3cret", body, good.removeprefix("sha256="))


def test_a_labelled_issue_asks_for_a_task_on_the_repository_project() -> None:
    trigger = trigger_of(Delivery("issues", "labeled", ISSUE, label="Itachi"), "itachi", "@itachi")

    assert trigger is not None and trigger.project == "github.com/acme/billing"
    assert trigger.prompt.startswith("GitHub issue Acme/Billing#7: Totals round down")


@pytest.mark.parametrize("delivery", [
    Delivery("issues", "labeled", ISSUE, label="bug"),
    Delivery("issues", "unlabeled", ISSUE, label="itachi"),
    Delivery("issue_comment", "edited", ISSUE, comment="@itachi go"),
    Delivery("issue_comment", "created", ISSUE, comment="@itachi go", sender_is_bot=True),
    Delivery("issue_comment", "created", None, comment="@itachi go"),
    Delivery("push", "", None)])
def test_other_deliveries_ask_for_nothing(delivery: Delivery) -> None:
    assert trigger_of(delivery, "itachi", "@itachi") is None
