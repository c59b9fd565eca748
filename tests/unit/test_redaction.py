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


@pytest.mark.parametrize("text", [
    "123456:" + "ABC-DEF1234ghIkl-zyx57W2v1u123ew11",  # Telegram's documentation
    "bot token 987654321:" + "xY_12abCDefGHijKLmnOPqrSTuvWXyz0123",
    "https://api.telegram.org/bot123456:" + "ABC-DEF1234ghIkl-zyx57W2v1u123ew11/getUpdates",
])
def test_a_telegram_token_in_the_documented_format_is_caught(text: str) -> None:
    clean = redact(text)
    assert "[REDACTED:telegram_token]" in clean
    assert "zyx57W2v1u123ew11" not in clean and "mnOPqrSTuvWXyz0123" not in clean


@pytest.mark.parametrize("text", ["AKIA" + "IOSFODNN7EXAMPLE_prod", "prod_AKIA" + "IOSFODNN7EXAMPLE",
                                  "~/.aws/AKIA" + "IOSFODNN7EXAMPLE_backup.csv",
                                  "id=ASIA" + "IOSFODNN7EXAMPLE_"])
def test_an_aws_key_id_glued_to_a_name_by_an_underscore_is_caught(text: str) -> None:
    clean = redact(text)
    assert "IOSFODNN7EXAMPLE" not in clean
    assert "[REDACTED:aws_access_key]" in clean


@pytest.mark.parametrize("text", [
    "The build runs at 12:30 and again at 18:45:00.",
    "Keep the aspect ratio 3:4 (or 16:9).",
    "Fixed in da39a3ee5e6b4b0d3255bfef95601890afd80709, see 1234567:da39a3ee5e6b4b0d3255bfef95601890afd80709",
    "run 3f1c2a9e-1234-4567-89ab-0123456789ab and 20240501:3f1c2a9e-1234-4567-89ab-0123456789ab",
    "/home/dev/src/itachi/chalicelib/kernel/redaction.py:120:5",
    "C:\\Users\\dev\\AKIA_notes\\build_2024_05_01.log",
    "pid 123456: worker started with 4 threads",
    "AKIAMOST is not a key, nor is THEAKIAIOSFODNN7EXAMPLE1 inside a longer word",
])
def test_times_ratios_hashes_uuids_and_paths_are_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize("sample", SAMPLES, ids=[f"{s.kind}-{i}" for i, s in enumerate(SAMPLES)])
def test_redacting_what_was_redacted_changes_nothing(sample: Sample) -> None:
    once = redact(f"{sample.text} and PASSWORD=hunter22 at postgres://u:pw-123456@db/x")
    assert redact(once) == once


def test_json_redacted_by_text_only_keeps_identifiers_under_secret_names() -> None:
    value = {"key": "5f0c1a2b3c4d", "run_key": "session:abc", "note": f"use {OPENAI_KEY}"}
    cleaned = redact_json(value, by_name=False)
    assert cleaned["key"] == "5f0c1a2b3c4d" and cleaned["run_key"] == "session:abc"
    assert cleaned["note"] == "use [REDACTED:api_key]"
