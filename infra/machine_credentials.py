"""`add-machine`, `rotate-machine`, `remove-machine`: an agent machine's IAM user, inline policy and key.

See infra/aws/agents.py for the model (one user per machine, a policy naming that machine's queue
only and expiring `KEY_LIFETIME_DAYS` after it was written, no stack resources).
"""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from typing import Any

from chalicelib.kernel.queue_table import MACHINE_QUEUE
from infra.aws.agents import MACHINE_TAG, POLICY_NAME, machine_policy, valid_machine_id
from infra.aws.stage import StageConfig


class MachineCredentials:
    def __init__(self, stage: StageConfig, session: Any, region: str) -> None:
        self.stage, self.session, self.region = stage, session, region
        self.iam = session.client("iam", region_name=region)

    def user_name(self, machine_id: str) -> str:
        return f"{self.stage.stack_name}-agent-{machine_id}"

    def _check(self, machine_id: str) -> None:
        if not valid_machine_id(machine_id):
            raise SystemExit("a machine id is 1-40 characters: letters, digits, '-' and '_', "
                             "and does not end in -dlq")

    def add(self, machine_id: str) -> dict[str, str]:
        """Create the machine's queue (+ DLQ), its user, its expiring policy and a key."""
        self._check(machine_id)
        from chalicelib.kernel.queues import SqsQueues

        queues = SqsQueues(prefix=self.stage.queue_prefix, region=self.region, session=self.session)
        queue_url = queues.ensure(MACHINE_QUEUE, key=f"machine-{machine_id}")
        user = self.user_name(machine_id)
        with contextlib.suppress(self.iam.exceptions.EntityAlreadyExistsException):
            self.iam.create_user(UserName=user, Path="/itachi/",
                                 Tags=[{"Key": MACHINE_TAG, "Value": machine_id}])
        return {"queue_url": queue_url, "user": user, **self._new_key(machine_id)}

    def rotate(self, machine_id: str) -> dict[str, str]:
        """A new key and a new expiry; every older key of the machine is deleted."""
        self._check(machine_id)
        user = self.user_name(machine_id)
        old = [k["AccessKeyId"] for k in self.iam.list_access_keys(UserName=user)["AccessKeyMetadata"]]
        return {"user": user, **self._new_key(machine_id, delete=old)}

    def remove(self, machine_id: str) -> str:
        self._check(machine_id)
        user = self.user_name(machine_id)
        for key in self.iam.list_access_keys(UserName=user)["AccessKeyMetadata"]:
            self.iam.delete_access_key(UserName=user, AccessKeyId=key["AccessKeyId"])
        with contextlib.suppress(self.iam.exceptions.NoSuchEntityException):
            self.iam.delete_user_policy(UserName=user, PolicyName=POLICY_NAME)
        self.iam.delete_user(UserName=user)
        return user

    def _queue_arn(self, machine_id: str) -> str:
        from chalicelib.kernel.queues import SqsQueues

        queues = SqsQueues(prefix=self.stage.queue_prefix, region=self.region, session=self.session)
        url = queues.url(f"machine-{machine_id}")
        attrs = queues.client.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
        return str(attrs["QueueArn"])

    def _put_policy(self, machine_id: str) -> datetime:
        document, expires = machine_policy(self._queue_arn(machine_id), datetime.now(UTC))
        self.iam.put_user_policy(UserName=self.user_name(machine_id), PolicyName=POLICY_NAME,
                                 PolicyDocument=json.dumps(document))
        return expires

    def _new_key(self, machine_id: str, delete: list[str] | None = None) -> dict[str, str]:
        user = self.user_name(machine_id)
        # At most two keys per user: make room for the new one before creating it.
        for key_id in (delete or [])[1:]:
            self.iam.delete_access_key(UserName=user, AccessKeyId=key_id)
        key = self.iam.create_access_key(UserName=user)["AccessKey"]
        expires = self._put_policy(machine_id)
        for key_id in (delete or [])[:1]:
            self.iam.delete_access_key(UserName=user, AccessKeyId=key_id)
        return {"expires": expires.strftime("%Y-%m-%d"), "AWS_ACCESS_KEY_ID": key["AccessKeyId"],
                "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"], "AWS_DEFAULT_REGION": self.region}

    def release_from_group(self, group: str) -> list[str]:
        """Stacks before per-machine policies kept agents in a stack-owned group, which a stack
        cannot delete while it has members: give each member its own policy and take it out."""
        released = []
        with contextlib.suppress(self.iam.exceptions.NoSuchEntityException):
            for user in self.iam.get_group(GroupName=group)["Users"]:
                name = user["UserName"]
                tags = {t["Key"]: t["Value"] for t in self.iam.list_user_tags(UserName=name)["Tags"]}
                machine_id = tags.get(MACHINE_TAG, "")
                if valid_machine_id(machine_id) and name == self.user_name(machine_id):
                    self._put_policy(machine_id)
                self.iam.remove_user_from_group(GroupName=group, UserName=name)
                released.append(name)
        return released
