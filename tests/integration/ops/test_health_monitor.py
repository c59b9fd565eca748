"""The health monitor against a Postgres of its own that is killed and started again: one alert
after three failed checks, silence while it stays down, one recovery message when it is back."""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container
from chalicelib.kernel.migrations import apply_migrations
from infra.local.postgres import start_postgres
from infra.local.postgres_watch import PostgresWatch, postmaster_pid, process_alive
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.local_stack import make_container, settings_for_test
from tests.support.orchestration import wait_for

CHAT = -1001234567890


@pytest.fixture
def own_postgres() -> Iterator[tuple[Path, Any]]:
    # Outside pytest's temp tree, as the shared test server is (it may run as another user).
    root = Path(tempfile.mkdtemp(prefix="itachi-health-pg-"))
    server, url = start_postgres(root)
    apply_migrations(url, embedding_dim=384, embedding_model="all-MiniLM-L6-v2")
    yield root, server
    server.cleanup()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def monitored(tmp_path: Path, own_postgres: tuple[Path, Any],
              moto_endpoint: str) -> Iterator[tuple[Container, FakeTelegram]]:
    with FakeTelegram(forums=(CHAT,)) as fake:
        settings = settings_for_test(tmp_path / "home", own_postgres[1].get_uri(), moto_endpoint).replace(
            telegram_bot_token=fake.token, telegram_api_url=fake.base_url, telegram_chat_id=CHAT,
            telegram_allowed_users=(111,))
        container = make_container(settings)
        yield container, fake
        container.close()


def alerts(fake: FakeTelegram) -> list[str]:
    return [t for t in fake.sent_texts(chat_id=CHAT) if "database" in t]


def test_killing_postgres_alerts_once_after_three_checks_and_once_when_it_is_back(
        own_postgres: tuple[Path, Any], monitored: tuple[Container, FakeTelegram]) -> None:
    root, server = own_postgres
    container, fake = monitored
    monitor = container.health_monitor
    assert monitor.run().status in ("ok", "warning")

    pid = postmaster_pid(root / "pgdata")
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not process_alive(pid), timeout_s=30, what="the postmaster to die")
    reports = [monitor.run() for _ in range(5)]

    assert [r.status for r in reports] == ["critical"] * 5
    assert [len(r.alerts) for r in reports] == [0, 0, 1, 0, 0]
    (alert,) = alerts(fake)
    assert alert.startswith("🔴 database has failed 3 checks in a row")

    watch = PostgresWatch(server, root / "pgdata", say=lambda line: None)  # `itachi up`'s restarter
    watch.start()
    try:
        recovered = wait_for(lambda: [r for r in [monitor.run()] if r.recoveries], timeout_s=120,
                             what="a check that sees the database again")
    finally:
        watch.stop()

    # Five checks failed while it was down, and more if a check ran while it was starting again.
    (recovery,) = recovered[0].recoveries
    assert re.fullmatch(r"🟢 database recovered after ([5-9]|\d\d) failed checks", recovery), recovery
    assert alerts(fake)[1:] == [recovery]
    assert monitor.run().recoveries == [] and len(alerts(fake)) == 2


def test_in_aws_each_check_becomes_a_cloudwatch_metric_the_alarms_watch(moto_endpoint: str) -> None:
    import boto3

    from chalicelib.ops.adapters.health_outputs import NAMESPACE, CloudWatchMetrics
    from chalicelib.ops.domain.health_rules import CheckResult

    client = boto3.client("cloudwatch", region_name="us-east-1", endpoint_url=moto_endpoint,
                          aws_access_key_id="test", aws_secret_access_key="test")
    stage = f"s{os.getpid()}"
    CloudWatchMetrics(lambda: client, stage).publish([
        CheckResult("database", "critical", "connection refused"), CheckResult("queues", "ok"),
        CheckResult("dlqs", "warning", "ingest-dlq: 2")])

    metrics = client.list_metrics(Namespace=NAMESPACE, MetricName="CheckLevel",
                                  Dimensions=[{"Name": "Stage", "Value": stage}])["Metrics"]
    checks = {d["Value"] for m in metrics for d in m["Dimensions"] if d["Name"] == "Check"}
    assert checks == {"database", "queues", "dlqs"}
    data = client.get_metric_data(MetricDataQueries=[{"Id": "db", "MetricStat": {"Metric": {
        "Namespace": NAMESPACE, "MetricName": "CheckLevel",
        "Dimensions": [{"Name": "Stage", "Value": stage}, {"Name": "Check", "Value": "database"}]},
        "Period": 60, "Stat": "Minimum"}}], StartTime=datetime.now(UTC) - timedelta(minutes=5),
        EndTime=datetime.now(UTC) + timedelta(minutes=1))["MetricDataResults"][0]
    assert data["Values"] == [2.0]
