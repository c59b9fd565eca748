"""Nothing redacted reaches the table, an embedding request or the logs."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.memory.domain.memory_model import MemoryDraft
from chalicelib.memory.services.memory_indexing import DocumentIndexer
from tests.fakes.memory_embedders import WordHashEmbedder
from tests.integration.memory.conftest import call, container_with, serving

OPENAI_KEY = "sk-proj-" + "Q7w8E9r0T1y2U3i4O5p6A7s8D9f0G1h2"
GITHUB_TOKEN = "ghp_" + "x1Y2z3" * 6
KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDfakekeymaterial"
PRIVATE_KEY = f"-----BEGIN PRIVATE KEY-----\n{KEY_BODY}\n-----END PRIVATE KEY-----"
SECRETS = (OPENAI_KEY, GITHUB_TOKEN, KEY_BODY, "hunter2-db-pass", "my secret diary")


def _everything_stored(container: object) -> str:
    with container.db.connection() as conn:  # type: ignore[attr-defined]
        rows = conn.execute("SELECT m::text AS row FROM memories m").fetchall()
        cache = conn.execute("SELECT c::text AS row FROM embedding_cache c").fetchall()
    return "\n".join(r["row"] for r in [*rows, *cache])


def test_planted_secrets_never_reach_the_table_the_embedder_or_the_logs(
        tmp_path: Path, database_url: str, capfd: pytest.CaptureFixture[str]) -> None:
    embedder = WordHashEmbedder()
    container = container_with(tmp_path, database_url, embedder)
    try:
        with serving(container) as api:
            status, stored = call(api, "POST", "/api/memory", {
                "project": "sec", "category": "fact",
                "content": f"Deploy key {OPENAI_KEY} and\n{PRIVATE_KEY}\n"
                           "<private>my secret diary</private> done",
                "summary": f"token {GITHUB_TOKEN}", "files": ["config/.env"],
                "metadata": {"password": "hunter2-db-pass", "dsn": "postgres://app:hunter2-db-pass@db/app"},
            })
            assert status == 201
            call(api, "POST", "/api/memory/code-change", {
                "project": "sec", "file": "settings.py", "summary": "set the key",
                "diff": f"+OPENAI_API_KEY = '{OPENAI_KEY}'"})
            call(api, "GET", "/api/memory/search", query=f"what is {OPENAI_KEY}", project="sec")
        row = container.memory.get(stored["id"])
    finally:
        container.close()
    stored_text = _everything_stored(container)
    sent = "\n".join(embedder.seen)
    logs = "".join(capfd.readouterr())
    for secret in SECRETS:
        assert secret not in stored_text
        assert secret not in sent
        assert secret not in logs
    assert "[REDACTED:api_key]" in row.content and "[REDACTED:private_key]" in row.content
    assert row.content.endswith("done") and "BEGIN PRIVATE KEY" not in row.content
    assert row.metadata["password"] == "[REDACTED:secret]"


def test_a_secret_cut_by_a_chunk_boundary_is_still_redacted(tmp_path: Path, database_url: str) -> None:
    embedder = WordHashEmbedder()
    container = container_with(tmp_path, database_url, embedder)
    filler = "\n".join(f"line {i} of the runbook explains one more step" for i in range(60))
    key_lines = "\n".join(KEY_BODY[i:i + 16] for i in range(0, len(KEY_BODY), 16))
    block = f"-----BEGIN PRIVATE KEY-----\n{key_lines}\n-----END PRIVATE KEY-----"
    text = f"# Runbook\n{filler}\n{block}\n{filler}"
    try:
        report = DocumentIndexer(container.memory).index("sec", "docs/runbook.md", text)
        assert report.chunks > 2
    finally:
        container.close()
    stored_text = _everything_stored(container)
    for piece in (KEY_BODY[i:i + 16] for i in range(0, len(KEY_BODY), 16)):
        assert piece not in stored_text and piece not in "\n".join(embedder.seen)


def test_a_redacted_memory_is_still_searchable_by_its_other_words(tmp_path: Path, database_url: str) -> None:
    container = container_with(tmp_path, database_url, WordHashEmbedder())
    try:
        container.memory.remember(MemoryDraft(project="sec", category="fact",
                                              content=f"The staging OpenAI key is {OPENAI_KEY}"))
        hits = container.memory.search("staging openai key", "sec", mode="text").hits
    finally:
        container.close()
    assert len(hits) == 1 and OPENAI_KEY not in hits[0].content
