"""Seeded sessions, edits and memories for the code-intelligence workers, through the session and
memory services (as the hooks and the learning loop write them), and a fingerprint of everything
the workers could change."""

from __future__ import annotations

from typing import Any

from chalicelib.bootstrap import Container
from chalicelib.memory.domain.memory_model import MemoryDraft

PY_DIFF = """@@ -1,3 +1,12 @@
+import httpx
+from pydantic import BaseModel
+
+
+def fetch_invoice(invoice_id: str) -> dict:
+    response = httpx.get(f"https://billing.example/invoices/{invoice_id}")
+    parsed_body = response.json()
+    return {"id": parsed_body["id"], "total": parsed_body["total"]}
"""
TEST_DIFF = """@@ -0,0 +1,6 @@
+import pytest
+
+
+def test_fetch_invoice_returns_the_total() -> None:
+    invoice_total = 42
+    assert invoice_total == 42
"""


def edit(
    session_id: str,
    project: str,
    file: str,
    *,
    diff: str = PY_DIFF,
    failed: bool = False,
    added: int = 8,
    removed: int = 1,
) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "project": project,
        "file": file,
        "tool": "Edit",
        "lines_added": added,
        "lines_removed": removed,
        "language": "python",
        "diff": diff,
        "failed": failed,
    }


def session(
    container: Container,
    session_id: str,
    project: str,
    files: list[str],
    *,
    transcript: list[dict[str, Any]] | None = None,
    failing: str | None = None,
) -> None:
    """One Claude Code session: its edits (tests alongside), then SessionEnd with its transcript."""
    for file in files:
        diff = TEST_DIFF if "test" in file else PY_DIFF
        container.sessions.record_edit(edit(session_id, project, file, diff=diff))
    if failing:
        for _ in range(2):
            container.sessions.record_edit(edit(session_id, project, failing, failed=True))
    container.sessions.complete(
        {
            "session_id": session_id,
            "project": project,
            "client": "claude",
            "reason": "exit",
            "duration_ms": 60_000,
            "summary": None,
            "files_changed": files,
            "transcript": transcript
            if transcript is not None
            else [
                {"role": "user", "text": f"Please fix the invoice totals in {files[0]}.", "line": 1},
                {
                    "role": "assistant",
                    "text": "We decided to use httpx instead of requests for the billing client. "
                    "Still need to add retries for timeouts later.",
                    "line": 2,
                },
            ],
        }
    )


def seed_project(container: Container, project: str = "billing", sessions: int = 4) -> None:
    """Sessions that edit the same pair of files each time, a test file, and a file that keeps failing."""
    for i in range(sessions):
        session(
            container,
            f"{project}-s{i}",
            project,
            ["src/billing/invoices.py", "src/billing/totals.py", f"tests/test_invoices_{i % 2}.py"],
            failing="src/billing/legacy.py" if i == 0 else None,
        )


def remember(container: Container, project: str, category: str, content: str, confidence: float = 0.8) -> str:
    return container.memory.remember(
        MemoryDraft(project=project, category=category, content=content, confidence=confidence)
    ).id


def state(container: Container) -> dict[str, Any]:
    """Everything a worker run could change: memories, products, the repos registry, LLM usage."""
    with container.db.connection() as conn:

        def one(sql: str) -> Any:
            return conn.execute(sql).fetchone()

        return {
            "memories": one(
                "SELECT count(*) AS n, max(updated_at) AS at, max(last_reinforced_at) AS r,"
                " sum(times_reinforced) AS t FROM memories"
            ),
            "products": one("SELECT count(*) AS n, max(updated_at) AS at FROM codeintel_products"),
            "repos": one("SELECT count(*) AS n, max(updated_at) AS at FROM repos"),
            "llm_calls": one("SELECT count(*) AS n FROM llm_usage"),
        }


def texts(container: Container, project: str, category: str) -> list[str]:
    return [m.content for m in container.memory.recent(project, limit=50, category=category)]
