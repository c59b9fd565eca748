"""Secrets and private spans never survive redaction; ordinary text does."""

from __future__ import annotations

import pytest

from chalicelib.kernel.redaction import drop_private, redact, redact_json, scrub

OPENAI_KEY = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuV"
PRIVATE_KEY = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"use key {OPENAI_KEY} for tests", OPENAI_KEY, "api_key"),
        ("token ghp_" + "A" * 36 + " works", "ghp_" + "A" * 36, "github_token"),
        ("github_pat_" + "B1" * 20, "github_pat_" + "B1" * 20, "github_token"),
        ("aws AKIAIOSFODNN7EXAMPLE id", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
        ("curl -H 'Authorization: Bearer abcdefghijklmnop1234'", "abcdefghijklmnop1234", "bearer_token"),
        ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
         "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
        ("db at postgres://app:hunter2secret@db.local:5432/app", "hunter2secret", "url_password"),
        ("xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "slack_token"),
    ],
)
def test_each_kind_of_secret_is_replaced_by_a_marker_naming_it(text: str, secret: str, kind: str) -> None:
    clean = redact(text)
    assert secret not in clean
    assert f"[REDACTED:{kind}]" in clean


def test_a_private_key_block_is_removed_whole_and_the_text_after_it_is_kept() -> None:
    clean = redact(f"before\n{PRIVATE_KEY}\nafter")
    assert "MIIEvQ" not in clean
    assert "BEGIN PRIVATE KEY" not in clean
    assert clean.startswith("before") and clean.endswith("after")


def test_an_unterminated_private_key_hides_everything_after_it() -> None:
    clean = redact("key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nmore")
    assert "MIIEow" not in clean and "more" not in clean


@pytest.mark.parametrize(
    "line",
    ["OPENAI_API_KEY=abc123def456", "export DB_PASSWORD='s3cr3t-value'", "GITHUB_TOKEN: tok_abcdef",
     '"client_secret": "zzzz-yyyy-xxxx"', "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY"],
)
def test_env_style_assignments_of_secret_names_lose_their_value(line: str) -> None:
    clean = redact(line)
    assert "[REDACTED:secret]" in clean
    value = line.split("=", 1)[-1] if "=" in line else line.split(":", 1)[-1]
    assert value.strip().strip("'\"") not in clean


@pytest.mark.parametrize(
    "text",
    ["max_tokens=2000", "primary_key=True", "We use uv, not pip, for installs.",
     "The task-management board lists 12 tasks.", "keyboard_layout=us-intl", "timeout: 30"],
)
def test_ordinary_text_and_harmless_settings_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_private_spans_are_dropped_including_an_unclosed_one() -> None:
    assert drop_private("a <private>hidden</private> b") == "a  b"
    assert drop_private("a <PRIVATE>x\ny</Private> b <private>tail") == "a  b "
    assert "hidden" not in redact("keep <private>hidden sk-" + "x" * 30 + "</private>")


def test_scrub_counts_what_it_replaced() -> None:
    clean, count = scrub(f"{OPENAI_KEY} and PASSWORD=hunter22")
    assert count == 2
    assert OPENAI_KEY not in clean and "hunter22" not in clean


def test_json_values_are_redacted_recursively_and_secret_keys_lose_their_values() -> None:
    cleaned = redact_json({"note": f"key {OPENAI_KEY}", "api_key": "plainvalue",
                           "nested": [{"password": "pw-123456"}], "count": 3})
    assert OPENAI_KEY not in str(cleaned)
    assert cleaned["api_key"] == "[REDACTED:secret]"
    assert cleaned["nested"][0]["password"] == "[REDACTED:secret]"
    assert cleaned["count"] == 3
