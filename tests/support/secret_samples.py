"""One planted secret of every kind the redactor claims, and a scan of a whole database for them.

The values are shaped like real credentials but made up here (assembled from parts, so no
scanner mistakes this file for a leak). Each sample is (kind, text holding it, the secret).
"""

from __future__ import annotations

from typing import NamedTuple

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
    _sample("slack_token", "slack ", "xoxb-" + "1234567890-abcdefghij", " ok"),
    _sample("google_api_key", "maps?key=", "AIza" + "SyA1234567890abcdefghijklmnopqrstu-", "&q=x"),
    _sample("google_oauth", "client secret ", "GOCSPX-" + "q1w2e3r4t5y6u7i8o9p0asdf"),
    _sample("stripe_key", "charge with ", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    _sample("stripe_key", "webhook ", "whsec_" + "abcdefghijklmnopqrstuvwxyz12"),
    _sample("telegram_token", "bot token ", "7123456789:AA" + "F0hq3vX9kLmN2pQrStUvWxYz01234567-",
            " ends in a dash"),
    _sample("telegram_token", "GET https://api.telegram.org/bot",
            "123456789:AA" + "Hdq_TcvCH1vGWJxfSeofSAs0K5PALDsaw", "/getMe"),
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


def leaks(database_url: str, secrets: tuple[str, ...] = SECRETS) -> dict[str, list[str]]:
    """{table: [secrets found in it]} over every table of the public schema (rows cast to text)."""
    found: dict[str, list[str]] = {}
    with psycopg.connect(database_url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").fetchall()]
        for table in tables:
            rows = conn.execute(sql.SQL("SELECT t::text FROM {} t").format(sql.Identifier(table))).fetchall()
            dump = "\n".join(r[0] for r in rows)
            hits = [s for s in secrets if s in dump]
            if hits:
                found[table] = hits
    return found
