"""SQS adapter: send, receive and delete on named queues (real SQS in AWS, moto server locally)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.lazy import Lazy
from chalicelib.kernel.queue_table import QueueSpec, queue_name


@dataclass(frozen=True)
class ReceivedMessage:
    message_id: str
    receipt_handle: str
    body: str
    receive_count: int


class SqsQueues:
    """Named-queue access over boto3. Clients and queue URLs are created on first use."""

    def __init__(self, *, prefix: str, region: str, endpoint_url: str | None = None,
                 session: Any = None) -> None:
        self._session = session  # a boto3 Session; each instance makes its own by default
        self._prefix = prefix
        self._region = region
        self._endpoint = endpoint_url
        self._client: Lazy[Any] = Lazy(self._connect)
        self._urls: dict[str, str] = {}

    @property
    def client(self) -> Any:
        return self._client.get()

    def _connect(self) -> Any:
        import boto3
        from botocore.config import Config

        kwargs: dict[str, Any] = {
            "region_name": self._region,
            "config": Config(retries={"max_attempts": 3, "mode": "standard"},
                             connect_timeout=3, read_timeout=30),
        }
        if self._endpoint:
            # Local moto server: any credentials are accepted.
            kwargs.update(endpoint_url=self._endpoint, aws_access_key_id="local",
                          aws_secret_access_key="local")
        # A session of our own: boto3's process-wide default is not thread-safe.
        session = self._session or boto3.session.Session()
        return session.client("sqs", **kwargs)

    def name(self, key: str) -> str:
        return queue_name(self._prefix, key)

    def url(self, key: str) -> str:
        if key not in self._urls:
            self._urls[key] = self.client.get_queue_url(QueueName=self.name(key))["QueueUrl"]
        return self._urls[key]

    def ensure(self, spec: QueueSpec, key: str | None = None) -> str:
        """Create the queue and its DLQ if missing (idempotent); return the queue URL."""
        key = key or spec.key
        dlq_url = self.client.create_queue(QueueName=self.name(f"{key}-dlq"))["QueueUrl"]
        dlq_arn = self.client.get_queue_attributes(
            QueueUrl=dlq_url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
        redrive = json.dumps({"deadLetterTargetArn": dlq_arn,
                              "maxReceiveCount": str(spec.max_receive_count)})
        url = self.client.create_queue(
            QueueName=self.name(key),
            Attributes={"VisibilityTimeout": str(spec.visibility_timeout_s),
                        "RedrivePolicy": redrive},
        )["QueueUrl"]
        self._urls[key] = url
        return str(url)

    def send(self, key: str, body: dict[str, Any]) -> str:
        resp = self.client.send_message(QueueUrl=self.url(key), MessageBody=json.dumps(body))
        return str(resp["MessageId"])

    def receive(self, key: str, *, max_messages: int = 10, wait_s: int = 10,
                visibility_timeout_s: int | None = None) -> list[ReceivedMessage]:
        kwargs: dict[str, Any] = {
            "QueueUrl": self.url(key), "MaxNumberOfMessages": max_messages,
            "WaitTimeSeconds": wait_s, "MessageSystemAttributeNames": ["ApproximateReceiveCount"],
        }
        if visibility_timeout_s is not None:
            kwargs["VisibilityTimeout"] = visibility_timeout_s
        messages = self.client.receive_message(**kwargs).get("Messages", [])
        return [
            ReceivedMessage(m["MessageId"], m["ReceiptHandle"], m["Body"],
                            int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1")))
            for m in messages
        ]

    def delete(self, key: str, receipt_handle: str) -> None:
        self.client.delete_message(QueueUrl=self.url(key), ReceiptHandle=receipt_handle)

    def extend(self, key: str, receipt_handle: str, visibility_timeout_s: int) -> None:
        self.client.change_message_visibility(
            QueueUrl=self.url(key), ReceiptHandle=receipt_handle,
            VisibilityTimeout=visibility_timeout_s,
        )

    def depth(self, key: str) -> int:
        attrs = self.client.get_queue_attributes(
            QueueUrl=self.url(key), AttributeNames=["ApproximateNumberOfMessages"]
        )["Attributes"]
        return int(attrs.get("ApproximateNumberOfMessages", 0))
