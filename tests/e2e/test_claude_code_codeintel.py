# ruff: noqa: F811 (fixtures imported from test_claude_code_memory are parameters here)
"""The real Claude Code CLI after the code-intelligence workers ran: the next session's briefing
(the hook's additional context, as the model received it) and MEMORY.md carry the style line,
the hot files and the repository's expertise.

The first session writes a module and its test through the CLI's own Write tool (the hooks record
the edits); the workers then run as their schedules would; the second session is only asked a
question, and what the fake model was sent is read back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hooks.memory_md import memory_md_path
from tests.conftest import RunningApi
from tests.e2e.test_claude_code_memory import (  # noqa: F401 (fixtures)
    ACCEPT_EDITS,
    PROJECT,
    claude,
    eventually,
    hook_env,
    itachi_home,
    outbox_entries,
    repo,
    session_id_of,
    stored_session,
    warm_api,
)
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import run_print

pytestmark = pytest.mark.e2e

MODULE = """import httpx
from pydantic import BaseModel


class InvoiceTotal(BaseModel):
    invoice_id: str
    total_cents: int


def fetch_invoice_total(invoice_id: str) -> InvoiceTotal:
    response = httpx.get(f"https://billing.example/invoices/{invoice_id}")
    response_body = response.json()
    return InvoiceTotal(invoice_id=invoice_id, total_cents=response_body["total_cents"])
"""
TEST = """import pytest

from notes.invoices import fetch_invoice_total


def test_fetch_invoice_total_needs_an_id() -> None:
    with pytest.raises(TypeError):
        fetch_invoice_total()
"""


def edits_of(api: RunningApi, session_id: str) -> list[Any]:
    with api.container.db.connection() as conn:
        return conn.execute("SELECT file FROM session_edits WHERE session_id = %s", (session_id,)).fetchall()


def test_the_next_sessions_briefing_and_memory_md_show_style_hot_files_and_expertise(
    claude: Path,
    repo: Path,
    itachi_home: Path,
    tmp_path: Path,
    warm_api: RunningApi,
) -> None:
    api = warm_api
    config_dir = tmp_path / "claude-config"
    module, test = repo / "notes" / "invoices.py", repo / "tests" / "test_invoices.py"
    script = [
        Reply.tool_use("Write", {"file_path": str(module), "content": MODULE}),
        Reply.tool_use("Write", {"file_path": str(test), "content": TEST}),
        Reply.text("Added the invoice client and its test."),
    ]
    with FakeAnthropic(script) as fake:
        first = run_print(
            claude,
            "Add an invoice total client with a test.",
            cwd=repo,
            env=hook_env(fake, config_dir, itachi_home, api.url, api.key),
            args=ACCEPT_EDITS,
        )
    assert first.returncode == 0, first.stderr
    session_id = session_id_of(first)
    eventually(lambda: len(edits_of(api, session_id)) == 2, 30, "both edits")
    eventually(lambda: (s := stored_session(api, session_id)) and s["ended_at"], 30, "the completed session")
    eventually(lambda: not outbox_entries(itachi_home), 30, "an empty outbox")

    workers = api.container.codeintel
    assert workers.edit_analyzer.run()["projects"] == 1
    assert workers.style_extractor.run()["changed"] == 1
    assert workers.repo_expertise.run()["changed"] == 1
    assert workers.session_synthesizer.run()["synthesized"] == 1

    with FakeAnthropic([Reply.text("Use fetch_invoice_total.")]) as fake:
        second = run_print(
            claude,
            "Where is the invoice client?",
            cwd=repo,
            env=hook_env(fake, config_dir, itachi_home, api.url, api.key),
        )
        sent = fake.all_request_text()
    assert second.returncode == 0, second.stderr
    assert second.results[-1]["result"] == "Use fetch_invoice_total."
    (briefing,) = [c[:6000] for c in sent.split("hook additional context: ")[1:] if "Session Briefing" in c]
    memory_md = memory_md_path(str(repo), config_dir).read_text()
    for shown in (briefing, memory_md):
        assert (
            "**Style**: python; snake_case names; 4-space indent; double quotes; tests change with" in shown
        )
        assert "prefers httpx, pydantic, pytest" in shown
        (hot,) = [line for line in shown.splitlines() if line.startswith("**Hot files**: ")]
        assert "notes/invoices.py (1 edits)" in hot and "tests/test_invoices.py (1 edits)" in hot
        assert "**Repo expertise**:" in shown
        assert "- Key files: notes/invoices.py, tests/test_invoices.py" in shown
        assert "**Session summaries**:" in shown and "Add an invoice total client with a test." in shown
    assert PROJECT in briefing
