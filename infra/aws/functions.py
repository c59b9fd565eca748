"""One Lambda per queue consumer and per schedule (from the tables), plus the migrations function.

Each gets its own role (least privilege), its own log group with retention, and the shared code
zip (chalicelib, functions, the vendored dependencies). Table handlers run behind
`functions.lambda_entry.handler`, which imports `ITACHI_HANDLER` at init and adds Powertools
context and a correlation id to every log line.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.kernel.queue_table import QUEUES, QueueSpec
from chalicelib.kernel.schedule_table import SCHEDULES, ScheduleSpec
from infra.aws import database
from infra.aws.cfn import (
    NO_VALUE,
    PRIVATE,
    Json,
    assume_role,
    get_att,
    if_private,
    join,
    pascal,
    ref,
    sqs_arn,
    sub,
)
from infra.aws.network import lambda_vpc_config
from infra.aws.secrets import DATABASE_SECRET, SECRETS, SecretSpec, secret_arns, secret_environment

ENTRY = "functions.lambda_entry.handler"
MIGRATIONS_ENTRY = "functions.migrate_on_deploy.handler"
RUNTIME = "python3.11"
SCHEDULE_TIMEOUT_S = 300
MIGRATIONS_TIMEOUT_S = 600
API_TIMEOUT_S = 30


@dataclass(frozen=True)
class FunctionSpec:
    logical_id: str  # "<Id>Function"; its role is "<Id>Role", its log group "<Id>Logs"
    name: str  # suffix of the function name: "${AWS::StackName}-<name>"
    target: str | None  # ITACHI_HANDLER ("module:function"), None for a direct handler
    timeout_s: int
    description: str
    queue: QueueSpec | None = None
    schedule: ScheduleSpec | None = None

    @property
    def base(self) -> str:
        return self.logical_id.removesuffix("Function")


def consumer_function(spec: QueueSpec) -> FunctionSpec:
    return FunctionSpec(f"{pascal(spec.key)}ConsumerFunction", f"{spec.key}-consumer", spec.consumer,
                        spec.consumer_timeout_s, f"Consumes the {spec.key} queue", queue=spec)


def schedule_function(spec: ScheduleSpec) -> FunctionSpec:
    timeout = int(getattr(spec, "timeout_s", SCHEDULE_TIMEOUT_S))
    return FunctionSpec(f"{pascal(spec.name)}ScheduleFunction", f"{spec.name}-schedule", spec.handler,
                        timeout, spec.description[:250], schedule=spec)


def table_functions() -> list[FunctionSpec]:
    consumers = [consumer_function(q) for q in QUEUES if q.consumer]
    return consumers + [schedule_function(s) for s in SCHEDULES]


MIGRATIONS = FunctionSpec("MigrationsFunction", "migrations", None, MIGRATIONS_TIMEOUT_S,
                          "Applies database migrations during each deploy")


def log_group(fn_name: str) -> Json:
    return {"Type": "AWS::Logs::LogGroup", "DeletionPolicy": "Delete", "UpdateReplacePolicy": "Delete",
            "Properties": {"LogGroupName": sub(f"/aws/lambda/${{AWS::StackName}}-{fn_name}"),
                           "RetentionInDays": ref("LogRetentionDays")}}


def role(base: str, extra_statements: list[Json], secrets: tuple[SecretSpec, ...]) -> Json:
    statements: list[Json] = [
        {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": get_att(f"{base}Logs", "Arn")},
        {"Fn::If": [PRIVATE, {
            "Effect": "Allow",
            # Lambda's VPC attachment: these EC2 actions support no narrower resource.
            "Action": ["ec2:CreateNetworkInterface", "ec2:DescribeNetworkInterfaces",
                       "ec2:DescribeSubnets", "ec2:DeleteNetworkInterface",
                       "ec2:AssignPrivateIpAddresses", "ec2:UnassignPrivateIpAddresses"],
            "Resource": "*"}, NO_VALUE]},
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": secret_arns(secrets)},
        # BatchGetSecretValue is authorised per secret by GetSecretValue above; it has no resource type.
        {"Effect": "Allow", "Action": "secretsmanager:BatchGetSecretValue", "Resource": "*"},
        *extra_statements,
    ]
    return {"Type": "AWS::IAM::Role", "Properties": {
        "AssumeRolePolicyDocument": assume_role("lambda.amazonaws.com"),
        "Policies": [{"PolicyName": "itachi-function", "PolicyDocument": {
            "Version": "2012-10-17", "Statement": statements}}]}}


def app_queue_statements(prefix: str) -> list[Json]:
    """What every app function may do with queues: send to ours, create and size machine queues."""
    return [
        {"Effect": "Allow", "Action": ["sqs:SendMessage", "sqs:GetQueueUrl", "sqs:GetQueueAttributes"],
         "Resource": sqs_arn(f"{prefix}-*")},
        {"Effect": "Allow", "Action": ["sqs:CreateQueue", "sqs:SetQueueAttributes", "sqs:TagQueue"],
         "Resource": sqs_arn(f"{prefix}-machine-*")},
    ]


def consumer_statements(prefix: str, spec: QueueSpec) -> list[Json]:
    return [{"Effect": "Allow",
             "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"],
             "Resource": sqs_arn(f"{prefix}-{spec.key}")}]


def app_environment(stage_env: dict[str, str]) -> Json:
    """The environment every app function shares: the stage's, secret ARNs, the database host."""
    env: Json = dict(stage_env)
    env.update(secret_environment(SECRETS))
    env["DATABASE_HOST"] = database.app_database_host()
    # Every deploy gives every function fresh containers, which read the secrets again.
    env["ITACHI_DEPLOY_ID"] = ref("DeployId")
    # Who may command the bot and where task topics go: deploy parameters, not repository files.
    env["TELEGRAM_ALLOWED_USERS"] = ref("TelegramAllowedUsers")
    env["TELEGRAM_CHAT_ID"] = ref("TelegramChatId")
    return env


def function_resource(fn: FunctionSpec, *, code_uri: str, handler: str, env: Json) -> Json:
    props: Json = {
        "FunctionName": sub(f"${{AWS::StackName}}-{fn.name}"),
        "Description": fn.description, "Handler": handler, "Runtime": RUNTIME,
        "Architectures": ["x86_64"], "CodeUri": code_uri, "MemorySize": ref("FunctionMemoryMb"),
        "Timeout": fn.timeout_s, "Role": get_att(f"{fn.base}Role", "Arn"),
        "Environment": {"Variables": {**env, **({"ITACHI_HANDLER": fn.target} if fn.target else {})}},
        "VpcConfig": lambda_vpc_config(),
        "LoggingConfig": {"LogGroup": ref(f"{fn.base}Logs"), "LogFormat": "Text"},
    }
    return {"Type": "AWS::Serverless::Function", "Properties": props}


def resources(prefix: str, stage_env: dict[str, str], code_uri: str) -> Json:
    res: Json = {}
    env = app_environment(stage_env)
    for fn in table_functions():
        extra = app_queue_statements(prefix)
        if fn.queue is not None:
            extra += consumer_statements(prefix, fn.queue)
        res[f"{fn.base}Logs"] = log_group(fn.name)
        res[f"{fn.base}Role"] = role(fn.base, extra, SECRETS)
        res[fn.logical_id] = {**function_resource(fn, code_uri=code_uri, handler=ENTRY, env=env),
                              "DependsOn": ["SchemaMigrations"]}
        if fn.schedule is not None:
            # A missed run is retried by the next period, not by overlapping retries.
            res[f"{fn.base}InvokeConfig"] = {"Type": "AWS::Lambda::EventInvokeConfig", "Properties": {
                "FunctionName": ref(fn.logical_id), "Qualifier": "$LATEST", "MaximumRetryAttempts": 0}}
    res.update(migrations_resources(stage_env, code_uri))
    return res


def migrations_resources(stage_env: dict[str, str], code_uri: str) -> Json:
    fn = MIGRATIONS
    env: Json = {k: v for k, v in stage_env.items() if not k.endswith("_SECRET_ID")}
    env.update(secret_environment((DATABASE_SECRET,)))
    env["DATABASE_HOST"] = database.instance_host()  # DDL and advisory locks go to the instance itself
    # Wait for the way out (Secrets Manager, CloudFormation's reply) before the first deploy's run;
    # a reference, not DependsOn, because these resources exist in private mode only.
    env["ITACHI_EGRESS"] = if_private(join(ref("PrivateDefaultRoute"), ref("S3Endpoint"), sep=","), "direct")
    return {
        f"{fn.base}Logs": log_group(fn.name),
        f"{fn.base}Role": role(fn.base, [], (DATABASE_SECRET,)),
        fn.logical_id: function_resource(fn, code_uri=code_uri, handler=MIGRATIONS_ENTRY, env=env),
    }
