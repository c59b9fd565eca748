"""Secrets and private spans never survive redaction; ordinary text does."""

from __future__ import annotations

import pytest

from chalicelib.kernel.redaction import _PREFIXED, _TOKENS, drop_private, redact, redact_json, scrub
from tests.support.secret_samples import SAMPLES, Sample

OPENAI_KEY = "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuV"
PRIVATE_KEY = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----"
)


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s.kind}-{i}" for i, s in enumerate(SAMPLES)])
def test_each_kind_of_secret_is_replaced_by_a_marker_naming_it(sample: Sample) -> None:
    clean = redact(sample.text)
    assert sample.secret not in clean
    assert f"[REDACTED:{sample.kind}]" in clean


def test_every_kind_the_redactor_names_has_a_planted_sample() -> None:
    assert {kind for kind, _ in _TOKENS} | {kind for kind, _ in _PREFIXED} | {"basic_auth", "private_key",
                                                                             "secret"} \
        == {s.kind for s in SAMPLES}


@pytest.mark.parametrize("after", ["/sendMessage", " ", ".", "", "\n", "?offset=3"])
def test_a_telegram_token_is_caught_inside_a_bot_url_and_when_it_ends_in_a_dash(after: str) -> None:
    token = "5012345678:AA" + "Gq7Ks9Lm0Np1Qr2St3Uv4Wx5Yz6Ab7Cd8-"
    clean = redact(f"https://api.telegram.org/bot{token}{after}")
    assert token not in clean and token[:-1] not in clean
    assert clean == f"https://api.telegram.org/bot[REDACTED:telegram_token]{after}"


@pytest.mark.parametrize("text", ["Basic Information", "Basic setup of the basic plan", "basic auth works"])
def test_basic_in_prose_is_not_mistaken_for_credentials(text: str) -> None:
    assert redact(text) == text


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


def test_a_github_token_cut_to_twenty_characters_is_still_caught() -> None:
    from chalicelib.kernel.redaction import redact

    cut = "ghp_" + "a1B2c3D4e5F6g7H8i9J0"
    assert redact(f"token {cut} in a log line") == "token [REDACTED:github_token] in a log line"
