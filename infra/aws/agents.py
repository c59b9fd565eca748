"""The role the API assumes for agent machines: a machine's queue credentials without IAM users.

An agent asks the API (`POST /api/machines/{id}/credentials`, its machine key) and the API
assumes `MachineQueueRole` with a session policy naming that machine's queue by ARN
(chalicelib/tasks/domain/queue_credentials.py), for an hour; the agent refreshes them before they
expire. The role may receive, delete and extend messages on the stage's machine queues and do
nothing else; only the API's role may assume it, and the API's role may assume only roles under
this stack's machine path. The session policy is what keeps one machine off another's queue.

The role lives at a path of its own so that the API's permission names it without a reference
to it: the role's trust policy already refers to the API's role, and a reference back would be
a cycle. Nothing is created per machine, so adding or retiring a machine is an API key, not IAM.
"""

from __future__ import annotations

from chalicelib.tasks.domain.queue_credentials import LIFETIME_S, QUEUE_ACTIONS
from infra.aws.cfn import Json, get_att, sub

MACHINE_ROLE_ID = "MachineQueueRole"
MACHINE_ROLE_PATH = "/itachi/${AWS::StackName}/machines/"


def machine_role_arns() -> Json:
    """Every role at the stack's machine path: what the API may assume."""
    return sub(f"arn:${{AWS::Partition}}:iam::${{AWS::AccountId}}:role{MACHINE_ROLE_PATH}*")


def machine_role_policy(queues: Json) -> Json:
    """The role's own permissions: the agent's actions on the machine queues (`queues`: their ARNs)."""
    return {"Version": "2012-10-17", "Statement": [
        {"Sid": "AgentsOnMachineQueues", "Effect": "Allow", "Action": list(QUEUE_ACTIONS),
         "Resource": queues}]}


def resources(api_role_id: str, machine_queues: Json) -> Json:
    return {MACHINE_ROLE_ID: {"Type": "AWS::IAM::Role", "Properties": {
        "Path": sub(MACHINE_ROLE_PATH),
        "Description": "Assumed by the API for an agent machine, narrowed to its own queue",
        "MaxSessionDuration": LIFETIME_S,
        "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": get_att(api_role_id, "Arn")},
             "Action": "sts:AssumeRole"}]},
        "Policies": [{"PolicyName": "itachi-machine-queues",
                      "PolicyDocument": machine_role_policy(machine_queues)}]}}}

