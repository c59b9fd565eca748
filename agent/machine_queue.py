"""The machine's own SQS queue, seen from the agent: long-poll, delete, extend visibility.

Local (`--local`): the server tells the agent the endpoint of its moto server. AWS
(`--aws`): no endpoint; boto3's default credential chain and region apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class QueueMessage:
    message_id: str
    receipt_handle: str
    body: str
    receive_count: int


class MachineQueue:
    def __init__(self, queue_url: str, *, region: str, endpoint_url: str | None) -> None:
        import boto3
        from botocore.config import Config

        kwargs: dict[str, Any] = {"region_name": region,
                                  "config": Config(retries={"max_attempts": 3, "mode": "standard"},
                                                   connect_timeout=5, read_timeout=40)}
        if endpoint_url:
            kwargs.update(endpoint_url=endpoint_url, aws_access_key_id="local", aws_secret_access_key="local")
        self.url = queue_url
        self._client = boto3.client("sqs", **kwargs)

    def receive(self, *, wait_s: int, max_messages: int, visibility_s: int) -> list[QueueMessage]:
        resp = self._client.receive_message(
            QueueUrl=self.url, WaitTimeSeconds=wait_s, MaxNumberOfMessages=max_messages,
            VisibilityTimeout=visibility_s, MessageSystemAttributeNames=["ApproximateReceiveCount"])
        return [QueueMessage(m["MessageId"], m["ReceiptHandle"], m["Body"],
                             int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1")))
                for m in resp.get("Messages", [])]

    def delete(self, receipt_handle: str) -> None:
        self._client.delete_message(QueueUrl=self.url, ReceiptHandle=receipt_handle)

    def extend(self, receipt_handle: str, seconds: int) -> None:
        self._client.change_message_visibility(QueueUrl=self.url, ReceiptHandle=receipt_handle,
                                               VisibilityTimeout=seconds)
