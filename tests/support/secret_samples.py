"""One planted secret of every kind the redactor claims, and a scan of a whole database for them.

The values are shaped like real credentials but made up here (assembled from parts, so no
scanner mistakes this file for a leak). Each sample is (kind, text holding it, the secret).
`TOKENS` are the samples whose secret is recognisable on its own, without the words around it:
what can be planted in a field that takes a name or a path (a hostname, a repository, a synced
file's path).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import psycopg
from psycopg import sql


class Sample(NamedTuple):
    kind: str
    text: str
    secret: str


def _sample(kind: str, before: str, secret: str, after: str = "") -> Sample:
    return Sample(kind, before + secret + after, secret)


SAMPLES: tuple[Sample, ...] = (
    _sample("api_key", "openai key ", "sk-proj-" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuV", " here"),
    _sample("api_key", "anthropic ", "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe-AbCd"),
    _sample("github_token", "push with ", "ghp_" + "x1Y2z3" * 6),
    _sample("github_token", "", "github_pat_" + "11AB" * 10, " in CI"),
    _sample("aws_access_key", "aws id ", "AKIA" + "IOSFODNN7EXAMPLE", " done"),
    _sample("aws_access_key", "profile ", "AKIA" + "IOSFODNN7EXAMPLF", "_prod in ~/.aws"),
    _sample("slack_token", "slack ", "xoxb-" + "1234567890-abcdefghij", " ok"),
    _sample("google_api_key", "maps?key=", "AIza" + "SyA1234567890abcdefghijklmnopqrstu-", "&q=x"),
    _sample("google_oauth", "client secret ", "GOCSPX-" + "q1w2e3r4t5y6u7i8o9p0asdf"),
    _sample("stripe_key", "charge with ", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    _sample("stripe_key", "webhook ", "whsec_" + "abcdefghijklmnopqrstuvwxyz12"),
    _sample("telegram_token", "bot token ", "7123456789:AA" + "F0hq3vX9kLmN2pQrStUvWxYz01234567-",
            " ends in a dash"),
    _sample("telegram_token", "GET https://api.telegram.org/bot",
            "123456789:AA" + "Hdq_TcvCH1vGWJxfSeofSAs0K5PALDsaw", "/getMe"),
    # The format of Telegram's own documentation: the part after the colon need not start with AA.
    _sample("telegram_token", "TELEGRAM_BOT ", "123456:" + "ABC-DEF1234ghIkl-zyx57W2v1u123ew11",
            " (from BotFather)"),
    _sample("itachi_key", "ITACHI_API_KEY=", "itk_" + "Q2xhdWRlLWtleS1zYW1wbGUtMTIzNDU2Nzg5MA", " in .env"),
    _sample("jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9"),
    _sample("bearer_token", "curl -H 'Authorization: Bearer ", "abcdefghijklmnop1234", "'"),
    _sample("basic_auth", "curl -H 'Authorization: Basic ", "YWRtaW46aHVudGVyMi1iYXNpYw==", "'"),
    _sample("url_password", "db at postgres://app:", "hunter2secret", "@db.local:5432/app"),
    _sample("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\n", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
            "\n-----END OPENSSH PRIVATE KEY-----"),
    _sample("secret", "export DB_PASSWORD='", "s3cr3t-value-42", "'"),
)
SECRETS: tuple[str, ...] = tuple(s.secret for s in SAMPLES)
ALL_IN_ONE = "\n".join(s.text for s in SAMPLES)
ONE_LINE = " ".join(s.text.replace("\n", " ") for s in SAMPLES)
_STANDALONE = {"api_key", "github_token", "aws_access_key", "slack_token", "google_api_key", "google_oauth",
               "stripe_key", "telegram_token", "itachi_key"}
TOKENS: tuple[Sample, ...] = tuple(s for s in SAMPLES if s.kind in _STANDALONE)


_TEXT_TYPES = ("text", "character varying", "character", "json", "jsonb", "ARRAY")


def text_columns(conn: psycopg.Connection[Any]) -> list[tuple[str, str]]:
    """(table, column) of every column of every table of the public schema that can hold text:
    text, varchar, json, jsonb and arrays (a new table is covered without naming it)."""
    rows = conn.execute(
        "SELECT c.table_name, c.column_name FROM information_schema.columns c"
        " JOIN information_schema.tables t USING (table_schema, table_name)"
        " WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.data_type = ANY(%s)"
        " ORDER BY c.table_name, c.ordinal_position", (list(_TEXT_TYPES),)).fetchall()
    return [(r[0], r[1]) for r in rows]


def leaks(database_url: str, secrets: tuple[str, ...] = SECRETS) -> dict[str, list[str]]:
    """{"table.column": [secrets found in it]} over every text-like column of every table."""
    found: dict[str, list[str]] = {}
    with psycopg.connect(database_url) as conn:
        for table, column in text_columns(conn):
            rows = conn.execute(sql.SQL("SELECT {}::text FROM {} WHERE {} IS NOT NULL").format(
                sql.Identifier(column), sql.Identifier(table), sql.Identifier(column))).fetchall()
            dump = "\n".join(r[0] for r in rows)
            hits = [s for s in secrets if s in dump]
            if hits:
                found[f"{table}.{column}"] = hits
    return found
