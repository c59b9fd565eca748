"""Text is redacted on its way into the database, whoever writes it; values that must stay as
given (keys built from names, kept replies) are stored verbatim and stay apart."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from psycopg.types.json import Jsonb

from chalicelib.kernel.database import Database
from chalicelib.kernel.idempotency import claim, recorded_reply, reserve, store_reply
from chalicelib.kernel.stored_text import Verbatim
from tests.support.secret_samples import ALL_IN_ONE, SAMPLES, SECRETS, TOKENS

AWS_PROD = "AKIA" + "IOSFODNN7EXAMPLE_prod"


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url, max_size=2)
    yield database
    database.close()


def test_text_sent_through_the_pool_is_stored_redacted_and_a_verbatim_value_as_given(db: Database) -> None:
    with db.connection() as conn:
        conn.execute("INSERT INTO itachi_meta (key, value) VALUES ('planted', %s), ('kept', %s)",
                     (ALL_IN_ONE, Verbatim("kept as given: " + AWS_PROD)))
        rows = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM itachi_meta").fetchall()}
    assert [s for s in SECRETS if s in rows["planted"]] == []
    assert {s.kind for s in SAMPLES if f"[REDACTED:{s.kind}]" in rows["planted"]} == {s.kind for s in SAMPLES}
    assert rows["kept"] == "kept as given: " + AWS_PROD


def test_strings_inside_jsonb_and_text_arrays_are_redacted_and_identifiers_kept(db: Database) -> None:
    with db.connection() as conn:
        conn.execute("CREATE TEMP TABLE planted (names text[], doc jsonb)")
        conn.execute("INSERT INTO planted VALUES (%s, %s)",
                     ([s.secret for s in TOKENS],
                      Jsonb({"key": "5f0c1a2b", "notes": [{"text": ALL_IN_ONE}]})))
        row = conn.execute("SELECT names, doc FROM planted").fetchone()
    assert row is not None
    stored = json.dumps(row["doc"]) + " ".join(row["names"])
    assert [s for s in SECRETS if s in stored] == []
    assert row["doc"]["key"] == "5f0c1a2b"
    assert len(row["names"]) == len(TOKENS)


def test_a_lookup_by_a_value_meets_the_value_as_it_was_stored(db: Database) -> None:
    with db.connection() as conn:
        conn.execute("INSERT INTO itachi_meta (key, value) VALUES (%s, 'found')", (f"deploy/{AWS_PROD}",))
        row = conn.execute("SELECT value FROM itachi_meta WHERE key = %s", (f"deploy/{AWS_PROD}",)).fetchone()
    assert row is not None and row["value"] == "found"


def test_consumer_keys_built_from_names_like_secrets_stay_apart(db: Database) -> None:
    with db.connection() as conn:
        first = claim(conn, "reflection", "api-key-service:2024-W01")
        second = claim(conn, "reflection", "api-key-service:2024-W02")
        again = claim(conn, "reflection", "api-key-service:2024-W01")
    assert (first, second, again) == (True, True, False)


def test_a_kept_reply_is_redacted_string_by_string_and_replays_as_json(db: Database) -> None:
    reply = {"queued": True, "key": "ab12cd34", "summary": f"deploy with {AWS_PROD}",
             "echo": [s.text for s in SAMPLES], "count": 123456789012345}
    for caller in ("1:laptop-key:evt-1", "1:laptop-key:evt-2"):
        with db.connection() as conn:
            reserve(conn, caller, "print")
            store_reply(conn, caller, 201, json.dumps(reply), "application/json")
    kept = recorded_reply(db, "1:laptop-key:evt-2")
    assert kept is not None and recorded_reply(db, "1:laptop-key:evt-1") is not None
    body = json.loads(kept["body"])
    assert body["key"] == "ab12cd34" and body["count"] == 123456789012345 and body["queued"] is True
    assert [s for s in SECRETS if s in kept["body"]] == [] and "IOSFODNN7EXAMPLE" not in kept["body"]
