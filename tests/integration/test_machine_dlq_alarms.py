"""Machine queues are made at run time, so the API puts the alarm on each one's DLQ as it makes it
(the stack alarms on the DLQs of the queue table). SQS, SNS and CloudWatch are moto's."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import boto3

from chalicelib.tasks.domain.machine_records import Heartbeat
from tests.support.local_stack import make_container, settings_for_test


def _client(name: str, endpoint: str) -> Any:
    return boto3.session.Session().client(name, region_name="us-east-1", endpoint_url=endpoint,
                                          aws_access_key_id="local", aws_secret_access_key="local")


def _online(machine_id: str) -> Heartbeat:
    return Heartbeat(machine_id=machine_id, status="online", agent_instance=f"i-{machine_id}", active_tasks=0,
                     max_concurrent=1, engine_priority=("claude",), projects=(), repos=())


def test_a_machines_first_heartbeat_puts_an_alarm_on_its_dead_letter_queue(
        tmp_path: Path, database_url: str, moto_endpoint: str) -> None:
    topic = _client("sns", moto_endpoint).create_topic(Name=f"alarms-{uuid.uuid4().hex[:8]}")["TopicArn"]
    settings = settings_for_test(tmp_path / "home", database_url, moto_endpoint, alarm_topic_arn=topic)
    container = make_container(settings)
    try:
        container.machine_registry.heartbeat(_online("laptop"))
        container.machine_registry.heartbeat(_online("laptop"))  # known queue: nothing made again
    finally:
        container.close()
    dlq = f"{settings.queue_prefix}-machine-laptop-dlq"
    _client("sqs", moto_endpoint).get_queue_url(QueueName=dlq)
    alarms = _client("cloudwatch", moto_endpoint).describe_alarms(
        AlarmNamePrefix=f"{settings.queue_prefix}-")["MetricAlarms"]
    assert [a["AlarmName"] for a in alarms] == [dlq]
    [alarm] = alarms
    assert alarm["Namespace"] == "AWS/SQS" and alarm["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert alarm["Dimensions"] == [{"Name": "QueueName", "Value": dlq}]
    assert alarm["Threshold"] == 1 and alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["AlarmActions"] == [topic] and alarm["OKActions"] == [topic]


def test_without_an_alarm_topic_a_machine_queue_is_made_and_no_alarm_is_put(
        tmp_path: Path, database_url: str, moto_endpoint: str) -> None:
    settings = settings_for_test(tmp_path / "home", database_url, moto_endpoint)
    container = make_container(settings)
    try:
        container.machine_registry.heartbeat(_online("desk"))
    finally:
        container.close()
    _client("sqs", moto_endpoint).get_queue_url(QueueName=f"{settings.queue_prefix}-machine-desk-dlq")
    assert _client("cloudwatch", moto_endpoint).describe_alarms(
        AlarmNamePrefix=f"{settings.queue_prefix}-")["MetricAlarms"] == []
