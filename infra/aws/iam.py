"""Function roles: each function's own role, from its row of the access table (infra/aws/access.py).

A role may write its own log group, read its own secrets, send to the queues its row lists,
receive from the queue it consumes, and (the API only) create machine queues, put the alarm
on each one's DLQ and assume the machine role. Nothing may change a queue's attributes or
tags: machine queues get their redrive policy when they are created.
"""

from __future__ import annotations

from chalicelib.kernel.queue_table import DLQ_SUFFIX, QUEUES, QueueSpec, queue_name
from infra.aws.access import MACHINES, Access
from infra.aws.agents import machine_role_arns
from infra.aws.cfn import NO_VALUE, Json, assume_role, get_att, sqs_arn, sub
from infra.aws.secrets import SecretSpec, secret_arns

TRACING = "TracingEnabled"  # condition: X-Ray active tracing


def queue_arn(prefix: str, key: str) -> Json:
    return sqs_arn(queue_name(prefix, "machine-*" if key == MACHINES else key))


def queue_statements(prefix: str, access: Access, consumes: QueueSpec | None = None) -> list[Json]:
    out: list[Json] = []
    if access.sends:
        out.append({"Sid": "SendToItsQueues", "Effect": "Allow",
                    "Action": ["sqs:SendMessage", "sqs:GetQueueUrl"],
                    "Resource": [queue_arn(prefix, key) for key in access.sends]})
    if access.creates_machine_queues:
        # CreateQueue sets the redrive policy and visibility at creation; the DLQ's ARN is read back.
        out.append({"Sid": "CreateMachineQueues", "Effect": "Allow",
                    "Action": ["sqs:CreateQueue", "sqs:GetQueueAttributes"],
                    "Resource": queue_arn(prefix, MACHINES)})
        # The stack cannot know the machines: the one who makes a machine's DLQ puts its alarm.
        out.append({"Sid": "AlarmOnMachineDlqs", "Effect": "Allow", "Action": ["cloudwatch:PutMetricAlarm"],
                    "Resource": [sub("arn:${AWS::Partition}:cloudwatch:${AWS::Region}:${AWS::AccountId}"
                                     f":alarm:{queue_name(prefix, 'machine-*')}{DLQ_SUFFIX}")]})
    if access.assumes_machine_role:
        out.append({"Sid": "AssumeTheMachineRole", "Effect": "Allow", "Action": "sts:AssumeRole",
                    "Resource": machine_role_arns()})
    if access.reads_queue_depths:
        keys = [k for spec in QUEUES for k in (spec.key, spec.dlq_key)]
        out.append({"Sid": "ReadQueueDepths", "Effect": "Allow",
                    "Action": ["sqs:GetQueueUrl", "sqs:GetQueueAttributes"],
                    "Resource": [queue_arn(prefix, key) for key in keys]})
    if access.puts_health_metrics:
        # PutMetricData has no resource type; the namespace condition narrows it.
        out.append({"Sid": "PutHealthMetrics", "Effect": "Allow", "Action": "cloudwatch:PutMetricData",
                    "Resource": "*",
                    "Condition": {"StringEquals": {"cloudwatch:namespace": "Itachi/Health"}}})
    if access.reads_logs:
        out.append({"Sid": "ReadTheStacksLogs", "Effect": "Allow",
                    "Action": ["logs:DescribeLogGroups", "logs:FilterLogEvents"],
                    "Resource": sub("arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}"
                                    ":log-group:/aws/lambda/${AWS::StackName}-*")})
    if consumes is not None:
        out.append({"Sid": "ConsumeItsQueue", "Effect": "Allow",
                    "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                               "sqs:GetQueueAttributes"],
                    "Resource": queue_arn(prefix, consumes.key)})
    return out


def role(base: str, extra_statements: list[Json], secrets: tuple[SecretSpec, ...]) -> Json:
    statements: list[Json] = [
        {"Sid": "OwnLogGroup", "Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": get_att(f"{base}Logs", "Arn")},
        {"Sid": "VpcAttachment", "Effect": "Allow",
         # Lambda's VPC attachment: these EC2 actions support no narrower resource.
         "Action": ["ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces",
                    "ec2:DescribeSubnets", "ec2:DeleteNetworkInterface",
                    "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"],
         "Resource": "*"},
        {"Fn::If": [TRACING, {
            "Sid": "XRayTraces", "Effect": "Allow",
            # X-Ray's write actions have no resource type.
            "Action": ["xray:PutTraceSegments", "xray:PutTelemetryRecords"], "Resource": "*"}, NO_VALUE]},
        {"Sid": "ItsSecrets", "Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
         "Resource": secret_arns(secrets)},
        # BatchGetSecretValue is authorised per secret by GetSecretValue above; it has no resource type.
        {"Sid": "BatchOfItsSecrets", "Effect": "Allow", "Action": "secretsmanager:BatchGetSecretValue",
         "Resource": "*"},
        *extra_statements,
    ]
    return {"Type": "AWS::IAM::Role", "Properties": {
        "AssumeRolePolicyDocument": assume_role("lambda.amazonaws.com"),
        "Policies": [{"PolicyName": "itachi-function", "PolicyDocument": {
            "Version": "2012-10-17", "Statement": statements}}]}}
