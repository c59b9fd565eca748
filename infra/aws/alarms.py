"""CloudWatch alarms: any message in a DLQ, any function error, any throttle. All go to one SNS topic."""

from __future__ import annotations

from chalicelib.kernel.queue_table import QUEUES
from infra.aws.cfn import Json, get_att, ref
from infra.aws.queues import dlq_id

PERIOD_S = 300


def _alarm(description: str, namespace: str, metric: str, dimensions: list[Json], statistic: str) -> Json:
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": {
        "AlarmDescription": description, "Namespace": namespace, "MetricName": metric,
        "Dimensions": dimensions, "Statistic": statistic, "Period": PERIOD_S, "EvaluationPeriods": 1,
        "Threshold": 1, "ComparisonOperator": "GreaterThanOrEqualToThreshold",
        "TreatMissingData": "notBreaching",
        "AlarmActions": [ref("AlarmTopic")], "OKActions": [ref("AlarmTopic")]}}


def resources(function_ids: list[str]) -> Json:
    res: Json = {
        "AlarmTopic": {"Type": "AWS::SNS::Topic", "Properties": {"DisplayName": "Itachi alarms"}},
        "AlarmEmailSubscription": {"Type": "AWS::SNS::Subscription", "Condition": "HasAlarmEmail",
                                   "Properties": {"TopicArn": ref("AlarmTopic"), "Protocol": "email",
                                                  "Endpoint": ref("AlarmEmail")}},
    }
    for spec in QUEUES:
        dims = [{"Name": "QueueName", "Value": get_att(dlq_id(spec), "QueueName")}]
        res[f"{dlq_id(spec)}DepthAlarm"] = _alarm(
            f"Messages are waiting in the {spec.key} DLQ: see docs/operations.md (DLQ redrive)",
            "AWS/SQS", "ApproximateNumberOfMessagesVisible", dims, "Maximum")
    for fid in function_ids:
        base = fid.removesuffix("Function")
        dims = [{"Name": "FunctionName", "Value": ref(fid)}]
        res[f"{base}ErrorsAlarm"] = _alarm(f"{fid} raised errors", "AWS/Lambda", "Errors", dims, "Sum")
        res[f"{base}ThrottlesAlarm"] = _alarm(f"{fid} was throttled", "AWS/Lambda", "Throttles", dims, "Sum")
    return res
