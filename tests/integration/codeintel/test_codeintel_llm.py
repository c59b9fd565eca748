"""The workers that ask the model, through the real openai SDK against the fake OpenAI server:
what the model's answer becomes, and that every call shows in `itachi usage` by its purpose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from chalicelib.bootstrap import Container
from tests.conftest import REPO_ROOT
from tests.fakes.fake_openai import CHAT_PATH, FakeOpenAI
from tests.support.codeintel_world import remember, seed_project, state, texts

SYNTHESIS = {
    "goal": "Fix invoice totals rounding",
    "changed": "invoices.py and totals.py now round half-up",
    "decisions": ["Use Decimal for money"],
    "open_ends": ["Backfill old invoices"],
}


def test_the_model_writes_the_summary_style_expertise_and_proposal_and_a_second_run_asks_nothing(
    keyed: Container, fake_openai: FakeOpenAI
) -> None:
    seed_project(keyed, sessions=1)
    remember(keyed, "billing", "project_rule", "Always run database migrations before running tests")
    remember(keyed, "shop", "task_lesson", "Run the database migrations before running the tests")
    fake_openai.script_chat(json.dumps(SYNTHESIS))
    fake_openai.script_chat("Billing service: invoices and totals live in src/billing; tests in tests/.")
    fake_openai.script_chat(
        json.dumps({"style": "Python with snake_case, 4-space indents, pytest beside code"})
    )
    fake_openai.script_chat(json.dumps({"rule": "Run database migrations before the test suite."}))
    workers = keyed.codeintel

    assert workers.session_synthesizer.run()["by_llm"] == 1
    assert workers.repo_expertise.run()["by_llm"] == 1
    assert workers.style_extractor.run()["by_llm"] == 1
    assert workers.cross_project.run()["by_llm"] == 1
    workers.edit_analyzer.run()
    workers.transcript_indexer.run()
    before, calls = state(keyed), len(fake_openai.requests_to(CHAT_PATH))
    for worker in (
        workers.session_synthesizer,
        workers.repo_expertise,
        workers.style_extractor,
        workers.cross_project,
        workers.edit_analyzer,
        workers.transcript_indexer,
    ):
        worker.run()

    assert len(fake_openai.requests_to(CHAT_PATH)) == calls == 4
    assert state(keyed) == before
    (summary,) = texts(keyed, "billing", "session_summary")
    assert "Fix invoice totals rounding" in summary and "Decisions: Use Decimal for money" in summary
    assert texts(keyed, "billing", "style") == [
        "Style: Python with snake_case, 4-space indents, pytest beside code"
    ]
    assert keyed.codeintel.repo_expertise.expertise_for("billing") == (
        "Repository expertise for billing\n"
        "Billing service: invoices and totals live in src/billing; tests in tests/."
    )
    assert texts(keyed, "_global", "global_proposal") == [
        "Proposed for every project: Run database migrations before the test suite."
    ]


def test_every_worker_call_is_in_itachi_usage_by_purpose(
    keyed: Container, fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    from app import app
    from infra.local.api_server import ApiServer

    seed_project(keyed, sessions=2)
    remember(keyed, "billing", "project_rule", "Always run database migrations before running tests")
    remember(keyed, "shop", "task_lesson", "Run the database migrations before running the tests")
    fake_openai.script_chat(json.dumps(SYNTHESIS))
    fake_openai.script_chat(json.dumps(SYNTHESIS))
    keyed.codeintel.session_synthesizer.run()
    keyed.codeintel.repo_expertise.run()
    keyed.codeintel.style_extractor.run()
    keyed.codeintel.cross_project.run()
    server = ApiServer(app, port=0, max_body_bytes=keyed.settings.max_body_bytes)
    server.start()
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ITACHI_")}
        env.update(
            ITACHI_HOME=str(tmp_path / "cli"),
            ITACHI_API_URL=server.url,
            ITACHI_API_KEY="test-key",
            PYTHONPATH=str(REPO_ROOT),
        )
        done = subprocess.run(
            [sys.executable, "-m", "agent.cli", "usage"], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        server.stop()

    assert done.returncode == 0, done.stderr
    rows = {line.split()[1]: line.split() for line in done.stdout.splitlines()[3:]}
    assert rows["session_synthesis"][2] == "2"
    assert rows["repo_expertise"][2] == "1"
    assert rows["style_extraction"][2] == "1"
    assert rows["cross_project"][2] == "1"
