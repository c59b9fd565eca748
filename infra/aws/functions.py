"""One Lambda per queue consumer and per schedule (from the tables), plus the migrations function.

Each gets its own role (its row of infra/aws/access.py), its own log group with retention, and the shared code
zip (chalicelib, functions, the vendored dependencies). Table handlers run behind
`functions.lambda_entry.handler`, which imports `ITACHI_HANDLER` at init and adds Powertools
context and a correlation id to every log line.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.kernel.queue_table import QUEUES, QueueSpec
from chalicelib.kernel.schedule_table import SCHEDULES, ScheduleSpec
from infra.aws import database
from infra.aws.access import BOT, Access, access_for
from infra.aws.capacity import MAX_CONSUMER_CONCURRENCY
from infra.aws.cfn import Json, get_att, join, pascal, ref, sub
from infra.aws.iam import TRACING, queue_statements, role
from infra.aws.network import lambda_vpc_config
from infra.aws.secrets import (
    APP_DATABASE_SECRET,
    DATABASE_SECRET,
    SECRET_SUFFIX,
    secret_environment,
    secrets_named,
)

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

    @property
    def access_key(self) -> str:
        """Its row in the access table: the handler, or the function's name (`api`, `migrations`)."""
        return self.target or self.name


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


def app_environment(stage_env: dict[str, str], access: Access) -> Json:
    """A function's environment: the stage's names (no secret ids), its own secrets' ARNs, the
    database host, and how to verify the database's certificate."""
    env: Json = {k: v for k, v in stage_env.items() if not k.endswith(SECRET_SUFFIX)}
    env.update(secret_environment(secrets_named(access.secrets)))
    env["DATABASE_HOST"] = database.app_database_host()
    env.update(database.tls_environment())
    # Every deploy gives every function fresh containers, which read the secrets again.
    env["ITACHI_DEPLOY_ID"] = ref("DeployId")
    if access.creates_machine_queues:
        env["ITACHI_ALARM_TOPIC_ARN"] = ref("AlarmTopic")  # each machine DLQ's alarm goes there
    if BOT in access.secrets:
        # Who may command the bot and where task topics go: deploy parameters, not repository files.
        env["TELEGRAM_ALLOWED_USERS"] = ref("TelegramAllowedUsers")
        env["TELEGRAM_CHAT_ID"] = ref("TelegramChatId")
    return env


def tracing_mode() -> Json:
    return {"Fn::If": [TRACING, "Active", "PassThrough"]}


def function_resource(fn: FunctionSpec, *, code_uri: str, handler: str, env: Json) -> Json:
    props: Json = {
        "FunctionName": sub(f"${{AWS::StackName}}-{fn.name}"),
        "Description": fn.description, "Handler": handler, "Runtime": RUNTIME,
        "Architectures": ["x86_64"], "CodeUri": code_uri, "MemorySize": ref("FunctionMemoryMb"),
        "Timeout": fn.timeout_s, "Role": get_att(f"{fn.base}Role", "Arn"),
        "Environment": {"Variables": {**env, **({"ITACHI_HANDLER": fn.target} if fn.target else {})}},
        "VpcConfig": lambda_vpc_config(),
        "LoggingConfig": {"LogGroup": ref(f"{fn.base}Logs"), "LogFormat": "Text"},
        "Tracing": tracing_mode(),
    }
    if fn.schedule is not None or fn is MIGRATIONS:
        # One run at a time: a tick that arrives while the last run is still going waits (Lambda
        # retries a throttled asynchronous event) and is dropped once older than one period.
        props["ReservedConcurrentExecutions"] = 1
    elif fn.queue is not None:
        # As many as the event source mapping's MaximumConcurrency: never more (the database
        # budget counts on it), never fewer (the mapping would be throttled).
        props["ReservedConcurrentExecutions"] = MAX_CONSUMER_CONCURRENCY
    return {"Type": "AWS::Serverless::Function", "Properties": props}


def resources(prefix: str, stage_env: dict[str, str], code_uri: str) -> Json:
    res: Json = {}
    for fn in table_functions():
        access = access_for(fn.access_key)
        res[f"{fn.base}Logs"] = log_group(fn.name)
        res[f"{fn.base}Role"] = role(fn.base, queue_statements(prefix, access, fn.queue),
                                     secrets_named(access.secrets))
        env = app_environment(stage_env, access)
        res[fn.logical_id] = {**function_resource(fn, code_uri=code_uri, handler=ENTRY, env=env),
                              "DependsOn": ["SchemaMigrations"]}
        if fn.schedule is not None:
            # A missed run is retried by the next period, not by overlapping retries.
            res[f"{fn.base}InvokeConfig"] = {"Type": "AWS::Lambda::EventInvokeConfig", "Properties": {
                "FunctionName": ref(fn.logical_id), "Qualifier": "$LATEST", "MaximumRetryAttempts": 0,
                "MaximumEventAgeInSeconds": max(60, min(fn.schedule.every_s, 21600))}}
    res.update(migrations_resources(stage_env, code_uri))
    return res


def migrations_resources(stage_env: dict[str, str], code_uri: str) -> Json:
    fn = MIGRATIONS
    access = access_for(fn.access_key)
    env: Json = {k: v for k, v in stage_env.items() if not k.endswith(SECRET_SUFFIX)}
    # It connects with the master login and sets the application login's password and grants.
    env.update(secret_environment((DATABASE_SECRET,)))
    env[f"{APP_DATABASE_SECRET.var}{SECRET_SUFFIX}"] = ref(APP_DATABASE_SECRET.logical_id)
    env["DATABASE_HOST"] = database.instance_host()  # DDL and advisory locks go to the instance itself
    env.update(database.tls_environment())
    # Wait for the way out (Secrets Manager, CloudFormation's reply) before the first deploy's run;
    # a reference, not DependsOn, because these resources exist in private mode only.
    env["ITACHI_EGRESS"] = join(ref("PrivateDefaultRoute"), ref("S3Endpoint"), sep=",")
    props = function_resource(fn, code_uri=code_uri, handler=MIGRATIONS_ENTRY, env=env)
    props["Properties"]["VpcConfig"] = lambda_vpc_config("MigrationsSecurityGroup")
    return {
        f"{fn.base}Logs": log_group(fn.name),
        f"{fn.base}Role": role(fn.base, [], secrets_named(access.secrets)),
        fn.logical_id: props,
    }
