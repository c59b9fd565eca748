"""Credentials for the agents on user machines: one IAM group whose policy reaches only the caller's
own queue.

The queue is named `<prefix>-machine-<id>` (chalicelib/kernel/queue_table.py); each agent user carries the tag
`itachi-machine=<id>`, and the policy's resource uses that tag, so one policy serves every machine
and no agent can read another's queue. Agents may send only to the queues agents report to
(`AGENT_SEND_QUEUE_KEYS`, when the queue table has them); everything else goes through the API
with an API key. `infra/deploy.py add-machine` creates a user, its queue and its keys.
"""

from __future__ import annotations

import re

from chalicelib.kernel.queue_table import QUEUES, queue_name
from infra.aws.cfn import Json, join, ref, sqs_arn

MACHINE_TAG = "itachi-machine"
AGENT_SEND_QUEUE_KEYS = ("progress", "results")
# The agent's machine id as agent/agent_config.py makes it: letters, digits, '-', '_', 40 at most.
_MACHINE_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


def valid_machine_id(machine_id: str) -> bool:
    return bool(_MACHINE_ID.match(machine_id))


def own_queue_arn(prefix: str) -> Json:
    # Fn::Join, not Fn::Sub: ${aws:PrincipalTag/...} is an IAM policy variable, left for IAM to fill.
    return join("arn:", ref("AWS::Partition"), ":sqs:", ref("AWS::Region"), ":", ref("AWS::AccountId"),
                f":{prefix}-machine-${{aws:PrincipalTag/{MACHINE_TAG}}}")


def resources(prefix: str) -> Json:
    statements: list[Json] = [{
        "Sid": "OwnQueueOnly", "Effect": "Allow",
        "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                   "sqs:GetQueueUrl", "sqs:GetQueueAttributes"],
        "Resource": own_queue_arn(prefix)}]
    send_to = [sqs_arn(queue_name(prefix, q.key)) for q in QUEUES if q.key in AGENT_SEND_QUEUE_KEYS]
    if send_to:
        statements.append({"Sid": "ReportProgress", "Effect": "Allow", "Action": "sqs:SendMessage",
                           "Resource": send_to})
    return {
        "AgentsGroup": {"Type": "AWS::IAM::Group", "Properties": {
            "Path": "/itachi/", "ManagedPolicyArns": [ref("AgentQueuePolicy")]}},
        "AgentQueuePolicy": {"Type": "AWS::IAM::ManagedPolicy", "Properties": {
            "Description": "Itachi agent: receive, delete and extend on its own machine queue only",
            "PolicyDocument": {"Version": "2012-10-17", "Statement": statements}}},
    }
