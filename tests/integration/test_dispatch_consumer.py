"""The dispatch consumer on real SQS (moto): partial batch failures, the DLQ, duplicates."""

from __future__ import annotations

import json
import time

from chalicelib.bootstrap import Container
from chalicelib.kernel.queue_table import QueueSpec
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, heartbeat, machine_messages, new_task

# The production spec redelivers after 180 s; the same consumer with a 0 s visibility timeout
# shows the redrive in a test.
FAST_DISPATCH = QueueSpec("dispatch", consumer="functions.dispatch_consumer:handler",
                          consumer_timeout_s=0, max_receive_count=2)


def test_a_poison_message_lands_in_the_dlq_and_the_good_ones_are_dispatched(
        api: RunningApi, container: Container) -> None:
    container.queues.client.delete_queue(QueueUrl=container.queues.url("dispatch"))
    container.queues.ensure(FAST_DISPATCH)
    client = client_for(api.url, api.key)
    heartbeat(client, "m1", max_concurrent=5)
    container.queues.send("dispatch", {"nonsense": True})
    container.queues.send("dispatch", {"task_id": "00000000-0000-0000-0000-000000000000"})
    tasks = [new_task(client, f"task {i}") for i in range(3)]

    for _ in range(6):
        deliver_batch(container.queues, FAST_DISPATCH, wait_s=0)
        time.sleep(0.05)

    dlq = container.queues.receive("dispatch-dlq", max_messages=10, wait_s=1)
    assert sorted(json.loads(m.body).get("task_id", "-") for m in dlq) == [
        "-", "00000000-0000-0000-0000-000000000000"]
    assert sorted(m["task_id"] for m in machine_messages(container, "m1")) == sorted(t["id"] for t in tasks)
    assert container.queues.depth("dispatch") == 0


def test_the_handler_reports_only_the_failed_records(api: RunningApi, container: Container) -> None:
    from functions.dispatch_consumer import handler
    from infra.local.lambda_runtime import LocalLambdaContext

    client = client_for(api.url, api.key)
    task = new_task(client)
    event = {"Records": [
        {"messageId": "good", "receiptHandle": "r1", "body": json.dumps({"task_id": task["id"]}),
         "attributes": {}, "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
         "eventSourceARN": "arn:aws:sqs:local:0:q", "awsRegion": "local"},
        {"messageId": "bad", "receiptHandle": "r2", "body": "not json", "attributes": {},
         "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
         "eventSourceARN": "arn:aws:sqs:local:0:q", "awsRegion": "local"},
    ]}

    response = handler(event, LocalLambdaContext("dispatch"))

    assert response == {"batchItemFailures": [{"itemIdentifier": "bad"}]}
