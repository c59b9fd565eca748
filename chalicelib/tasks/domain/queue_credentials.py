"""Short-lived AWS credentials for one machine's queue: what they allow and how long they last.

The API assumes the deployment's machine role (infra/aws/agents.py) with a session policy naming
the machine's own queue by ARN: the session may do what the role allows and the session policy
allows, so every machine shares one role and still reaches only its own queue.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# What an agent does on its queue: long-poll, delete what it handled, extend what it works on.
QUEUE_ACTIONS = ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                 "sqs:GetQueueAttributes", "sqs:GetQueueUrl")
# The API's own credentials are a role's, and a role assumed from a role lasts an hour at most.
LIFETIME_S = 3600


@dataclass(frozen=True)
class QueueCredentials:
    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str = field(repr=False)
    expires_at: datetime


def session_policy(queue_arn: str) -> dict[str, Any]:
    """The session policy: the agent's actions on this one queue, nothing else."""
    return {"Version": "2012-10-17", "Statement": [
        {"Sid": "OwnQueueOnly", "Effect": "Allow", "Action": list(QUEUE_ACTIONS), "Resource": queue_arn}]}


def session_name(machine_id: str) -> str:
    """The role session's name (what CloudTrail shows): a valid machine id is 40 characters at most."""
    return f"itachi-machine-{machine_id}"
