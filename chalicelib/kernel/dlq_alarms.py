"""The alarm on a dead-letter queue: a message waiting in it mails the deployment's alarm topic.

The stack puts it on the DLQs of the queue table (infra/aws/alarms.py); a machine's queue is made
at run time (its first heartbeat), so whoever makes that DLQ puts its alarm (`DlqAlarms.watch`),
named after the DLQ. PutMetricAlarm replaces an alarm of the same name: watching twice is harmless.
"""

from __future__ import annotations

from typing import Any

from chalicelib.kernel.lazy import Lazy

PERIOD_S = 300


def dlq_alarm(queue_name: Any, topic_arn: Any) -> dict[str, Any]:
    """PutMetricAlarm's arguments (and the template's properties) for one DLQ, less its name."""
    return {
        "AlarmDescription": "A message is waiting in a dead-letter queue: it failed every delivery",
        "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
        "Dimensions": [{"Name": "QueueName", "Value": queue_name}], "Statistic": "Maximum",
        "Period": PERIOD_S, "EvaluationPeriods": 1, "Threshold": 1,
        "ComparisonOperator": "GreaterThanOrEqualToThreshold", "TreatMissingData": "notBreaching",
        "AlarmActions": [topic_arn], "OKActions": [topic_arn],
    }


class DlqAlarms:
    """Puts the alarm on DLQs made at run time; boto3's CloudWatch client is built on first use."""

    def __init__(self, topic_arn: str, *, region: str, endpoint_url: str | None = None) -> None:
        self._topic_arn = topic_arn

        def build() -> Any:
            import boto3

            kwargs: dict[str, Any] = {"region_name": region}
            if endpoint_url:  # a local moto server takes any credentials
                kwargs.update(endpoint_url=endpoint_url, aws_access_key_id="local",
                              aws_secret_access_key="local")
            return boto3.session.Session().client("cloudwatch", **kwargs)

        self._client = Lazy(build)

    def watch(self, dlq_name: str) -> None:
        self._client.get().put_metric_alarm(AlarmName=dlq_name, **dlq_alarm(dlq_name, self._topic_arn))
