"""Machine queue credentials from STS: AssumeRole of the deployment's machine role with a session
policy (real STS in AWS, the moto server locally). boto3 is imported, and its client built, on
first use."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chalicelib.kernel.queues import SqsQueues, lazy_aws_client
from chalicelib.tasks.adapters.sqs_task_queues import machine_queue_key
from chalicelib.tasks.domain.queue_credentials import QueueCredentials

# Locally the moto server stands in for STS; it assumes a role without needing it to exist.
LOCAL_MACHINE_ROLE_ARN = "arn:aws:iam::123456789012:role/itachi-local-machine-queue"


class StsQueueCredentials:
    def __init__(self, role_arn: str, queues: SqsQueues, *, region: str, endpoint_url: str | None = None,
                 session: Any = None) -> None:
        self._role_arn = role_arn
        self._queues = queues
        self._sts = lazy_aws_client("sts", region=region, endpoint_url=endpoint_url, session=session,
                                    sign_with_session=session is not None)

    def queue_arn(self, machine_id: str) -> str | None:
        return self._queues.arn(machine_queue_key(machine_id))

    def issue(self, session_name: str, policy: Mapping[str, Any], duration_s: int) -> QueueCredentials:
        answer = self._sts.get().assume_role(RoleArn=self._role_arn, RoleSessionName=session_name,
                                             Policy=json.dumps(policy, separators=(",", ":")),
                                             DurationSeconds=duration_s)["Credentials"]
        return QueueCredentials(answer["AccessKeyId"], answer["SecretAccessKey"], answer["SessionToken"],
                                answer["Expiration"])
