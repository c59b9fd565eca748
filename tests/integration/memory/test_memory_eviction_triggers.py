"""When eviction runs: SessionEnd over budget queues a run on the ingest queue (moto) and its
consumer runs it; under budget nothing is queued; the weekly handler keys its run by ISO week."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from chalicelib.bootstrap import set_container
from chalicelib.memory.domain.memory_model import MemoryDraft
from functions.memory_eviction import weekly_run_key
from tests.support.local_stack import make_container, settings_for_test


def _session(project: str, sid: str) -> dict[str, object]:
    return {"session_id": sid, "project": project, "client": "claude", "reason": "exit", "duration_ms": 1,
            "summary": "done", "files_changed": [], "transcript": None}


def test_a_session_ending_over_budget_queues_an_eviction_that_the_ingest_consumer_runs(
        tmp_path: Path, database_url: str, moto_endpoint: str) -> None:
    from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

    from functions.ingest_consumer import record_handler

    c = make_container(settings_for_test(tmp_path / "home", database_url, moto_endpoint, memory_budget=2))
    set_container(c)
    try:
        for i in range(2):
            c.memory.remember(MemoryDraft("small", "fact", f"Small project note {i}."))
        c.sessions.complete(_session("small", "s-small"))
        assert c.queues.receive("ingest", wait_s=1) == []
        for i in range(4):
            c.memory.remember(MemoryDraft("big", "fact", f"Big project note {i} on job_{i}."))
        c.sessions.complete(_session("big", "s-big"))
        received = c.queues.receive("ingest", wait_s=5)
        assert [json.loads(m.body) for m in received] == [
            {"kind": "evict_memories", "project": "big", "run_key": "session:s-big"}]
        record = SQSRecord({"messageId": received[0].message_id, "body": received[0].body})
        record_handler(record)
        record_handler(record)  # a redelivery resumes the same run: nothing more moves
        assert c.memory_lifecycle.phase_counts("big") == {"full": 2, "hint": 2, "abstract": 0, "archived": 0}
    finally:
        set_container(None)
        c.close()


def test_the_weekly_run_is_keyed_by_its_iso_week() -> None:
    assert weekly_run_key(datetime(2026, 11, 23, tzinfo=UTC)) == "weekly:2026-W48"
    assert weekly_run_key(datetime(2027, 1, 1, tzinfo=UTC)) == "weekly:2026-W53"
