"""SQS queues and DLQs from chalicelib/kernel/queue_table.py, with their Lambda event source mappings.

Visibility timeout = 6 x the consumer's timeout (the table computes it), `maxReceiveCount` from
the table, partial batch responses on every mapping, and a concurrency cap so a burst cannot
exhaust the database's connections.
"""

from __future__ import annotations

from chalicelib.kernel.queue_table import QUEUES, QueueSpec, queue_name
from infra.aws.capacity import MAX_CONSUMER_CONCURRENCY
from infra.aws.cfn import Json, get_att, pascal, ref, tags
from infra.aws.functions import consumer_function

DLQ_RETENTION_S = 14 * 24 * 3600



def queue_id(spec: QueueSpec) -> str:
    return f"{pascal(spec.key)}Queue"


def dlq_id(spec: QueueSpec) -> str:
    return f"{pascal(spec.key)}DeadLetterQueue"


def resources(prefix: str, stage: str) -> Json:
    res: Json = {}
    for spec in QUEUES:
        res[dlq_id(spec)] = {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": queue_name(prefix, spec.dlq_key), "MessageRetentionPeriod": DLQ_RETENTION_S,
            "SqsManagedSseEnabled": True, "Tags": tags(stage)}}
        res[queue_id(spec)] = {"Type": "AWS::SQS::Queue", "Properties": {
            "QueueName": queue_name(prefix, spec.key),
            "VisibilityTimeout": spec.visibility_timeout_s,
            "RedrivePolicy": {"deadLetterTargetArn": get_att(dlq_id(spec), "Arn"),
                              "maxReceiveCount": spec.max_receive_count},
            "SqsManagedSseEnabled": True, "Tags": tags(stage)}}
        if spec.consumer:
            fn = consumer_function(spec)
            res[f"{fn.base}EventSource"] = {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                "EventSourceArn": get_att(queue_id(spec), "Arn"), "FunctionName": ref(fn.logical_id),
                "BatchSize": spec.batch_size, "FunctionResponseTypes": ["ReportBatchItemFailures"],
                "ScalingConfig": {"MaximumConcurrency": MAX_CONSUMER_CONCURRENCY}, "Enabled": True}}
    return res
