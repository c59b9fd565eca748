"""SQS over boto3 (real SQS in AWS, a moto server locally), for the server and the agent alike.

`SqsQueue` is one queue by URL: all an agent knows of its machine queue. `SqsQueues` names the
deployment's queues under a prefix, creates them with their DLQ and hands out `SqsQueue`s.
boto3 is imported, and its client built, on first use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib.kernel.lazy import Lazy
from chalicelib.kernel.queue_table import QueueSpec, queue_name
from chalicelib.kernel.request_transaction import after_request_commit


@dataclass(frozen=True)
class ReceivedMessage:
    message_id: str
    receipt_handle: str
    body: str
    receive_count: int


def lazy_aws_client(service: str, *, region: str, endpoint_url: str | None = None, session: Any = None,
                    sign_with_session: bool = False, connect_timeout_s: int = 3,
                    read_timeout_s: int = 30) -> Lazy[Any]:
    """A boto3 client, built on first use from a session of its own (boto3's default one is not
    thread-safe) or the one given; against a local moto server (endpoint_url), which takes any
    credentials, it signs with placeholder ones unless `sign_with_session` says the session's own
    credentials are the point (a test with IAM enforced, an agent's vended credentials)."""

    def build() -> Any:
        import boto3
        from botocore.config import Config

        kwargs: dict[str, Any] = {
            "region_name": region,
            "config": Config(retries={"max_attempts": 3, "mode": "standard"},
                             connect_timeout=connect_timeout_s, read_timeout=read_timeout_s),
        }
        if endpoint_url:
            kwargs["endpoint_url"] = endpoint_url
            if not sign_with_session:
                kwargs.update(aws_access_key_id="local", aws_secret_access_key="local")
        return (session or boto3.session.Session()).client(service, **kwargs)

    return Lazy(build)


def lazy_sqs_client(*, region: str, endpoint_url: str | None = None, session: Any = None,
                    sign_with_session: bool = False, connect_timeout_s: int = 3,
                    read_timeout_s: int = 30) -> Lazy[Any]:
    return lazy_aws_client("sqs", region=region, endpoint_url=endpoint_url, session=session,
                           sign_with_session=sign_with_session, connect_timeout_s=connect_timeout_s,
                           read_timeout_s=read_timeout_s)


class SqsQueue:
    """One queue, by URL: send, receive, delete, extend visibility, depth."""

    def __init__(self, client: Lazy[Any], url: str) -> None:
        self._client = client
        self.url = url

    @classmethod
    def at(cls, url: str, *, region: str, endpoint_url: str | None = None, session: Any = None,
           connect_timeout_s: int = 3, read_timeout_s: int = 30) -> SqsQueue:
        """The queue at url, over a client of its own (read_timeout_s must outlast a long poll),
        signing with `session`'s credentials when one is given."""
        return cls(lazy_sqs_client(region=region, endpoint_url=endpoint_url, session=session,
                                   sign_with_session=session is not None, connect_timeout_s=connect_timeout_s,
                                   read_timeout_s=read_timeout_s), url)

    def send(self, body: dict[str, Any], *, delay_s: int = 0) -> str:
        """Send now; inside a request-wide transaction, once it has committed (the id is then "")."""
        if after_request_commit(lambda: self._send(body, delay_s)):
            return ""
        return self._send(body, delay_s)

    def _send(self, body: dict[str, Any], delay_s: int) -> str:
        kwargs: dict[str, Any] = {"DelaySeconds": delay_s} if delay_s else {}
        resp = self._client.get().send_message(QueueUrl=self.url, MessageBody=json.dumps(body), **kwargs)
        return str(resp["MessageId"])

    def receive(self, *, max_messages: int = 10, wait_s: int = 10,
                visibility_timeout_s: int | None = None) -> list[ReceivedMessage]:
        kwargs: dict[str, Any] = {
            "QueueUrl": self.url, "MaxNumberOfMessages": max_messages,
            "WaitTimeSeconds": wait_s, "MessageSystemAttributeNames": ["ApproximateReceiveCount"],
        }
        if visibility_timeout_s is not None:
            kwargs["VisibilityTimeout"] = visibility_timeout_s
        messages = self._client.get().receive_message(**kwargs).get("Messages", [])
        return [
            ReceivedMessage(m["MessageId"], m["ReceiptHandle"], m["Body"],
                            int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1")))
            for m in messages
        ]

    def delete(self, receipt_handle: str) -> None:
        self._client.get().delete_message(QueueUrl=self.url, ReceiptHandle=receipt_handle)

    def extend(self, receipt_handle: str, visibility_timeout_s: int) -> None:
        self._client.get().change_message_visibility(
            QueueUrl=self.url, ReceiptHandle=receipt_handle, VisibilityTimeout=visibility_timeout_s)

    def depth(self) -> int:
        attrs = self._client.get().get_queue_attributes(
            QueueUrl=self.url, AttributeNames=["ApproximateNumberOfMessages"])["Attributes"]
        return int(attrs.get("ApproximateNumberOfMessages", 0))


class SqsQueues:
    """The deployment's queues, by key (`dispatch`, `machine-<id>`...) under the stage's prefix."""

    def __init__(self, *, prefix: str, region: str, endpoint_url: str | None = None,
                 session: Any = None, sign_with_session: bool = False) -> None:
        self._sqs = lazy_sqs_client(region=region, endpoint_url=endpoint_url, session=session,
                                    sign_with_session=sign_with_session)
        self._prefix = prefix
        self._urls: dict[str, str] = {}

    @property
    def client(self) -> Any:
        return self._sqs.get()

    def name(self, key: str) -> str:
        return queue_name(self._prefix, key)

    def url(self, key: str) -> str:
        if key not in self._urls:
            self._urls[key] = self.client.get_queue_url(QueueName=self.name(key))["QueueUrl"]
        return self._urls[key]

    def arn(self, key: str) -> str | None:
        """The queue's ARN; None if there is no such queue."""
        try:
            url = self.url(key)
        except self.client.exceptions.QueueDoesNotExist:
            return None
        attrs = self.client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
        return str(attrs["QueueArn"])

    def queue(self, key: str) -> SqsQueue:
        return SqsQueue(self._sqs, self.url(key))

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

    def send(self, key: str, body: dict[str, Any], *, delay_s: int = 0) -> str:
        return self.queue(key).send(body, delay_s=delay_s)

    def receive(self, key: str, *, max_messages: int = 10, wait_s: int = 10,
                visibility_timeout_s: int | None = None) -> list[ReceivedMessage]:
        return self.queue(key).receive(max_messages=max_messages, wait_s=wait_s,
                                       visibility_timeout_s=visibility_timeout_s)

    def delete(self, key: str, receipt_handle: str) -> None:
        self.queue(key).delete(receipt_handle)

    def extend(self, key: str, receipt_handle: str, visibility_timeout_s: int) -> None:
        self.queue(key).extend(receipt_handle, visibility_timeout_s)

    def depth(self, key: str) -> int:
        return self.queue(key).depth()
