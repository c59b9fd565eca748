"""Credentials for the agents on user machines: per machine, reaching only that machine's queue,
and expiring.

`infra/deploy.py add-machine <id>` makes an IAM user `<stack>-agent-<id>` (tagged
`itachi-machine=<id>`) with one inline policy naming its own queue `<prefix>-machine-<id>` by
ARN, and an access key. The policy holds only until `KEY_LIFETIME_DAYS` after it was written
(`aws:CurrentTime` condition), so a key nobody rotated stops working on a known date;
`rotate-machine` issues a new key, writes the policy with a new expiry and deletes the old key.
Nothing of this belongs to the stack: deleting a stage never trips over an agent's user, and
`remove-machine` deletes a machine's user.

Why not roles without keys: the agent runs on a user's machine, outside AWS, and IAM Roles
Anywhere needs a certificate authority to run; a key that expires by policy and rotates with one
command is the smaller thing to operate. A machine id never ends in `-dlq`
(chalicelib/kernel/queue_table.py), so no machine's queue is another machine's dead-letter queue.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from chalicelib.kernel.queue_table import valid_machine_id

MACHINE_TAG = "itachi-machine"
POLICY_NAME = "itachi-machine-queue"
KEY_LIFETIME_DAYS = 90
AGENT_ACTIONS = ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                 "sqs:GetQueueUrl", "sqs:GetQueueAttributes"]

__all__ = ["KEY_LIFETIME_DAYS", "MACHINE_TAG", "POLICY_NAME", "machine_policy", "valid_machine_id"]


def machine_policy(queue_arn: str, now: datetime) -> tuple[dict[str, object], datetime]:
    """The inline policy for one machine's user, and when it stops allowing anything."""
    expires = now + timedelta(days=KEY_LIFETIME_DAYS)
    document: dict[str, object] = {"Version": "2012-10-17", "Statement": [{
        "Sid": "OwnQueueUntilExpiry", "Effect": "Allow", "Action": AGENT_ACTIONS, "Resource": queue_arn,
        "Condition": {"DateLessThan": {"aws:CurrentTime": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}}}]}
    return document, expires
