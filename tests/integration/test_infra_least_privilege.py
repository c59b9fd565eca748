"""Least privilege and operations in the rendered templates of both stages.

Each stage's template is rendered as `make package` renders it (`chalice package` on the app,
then infra/template.py), without building the zip. The table below is written by hand from what
each handler does; it is not read from infra/aws/access.py, so a change to either shows here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.schedule_table import SCHEDULES
from infra.aws.capacity import RESERVED, Budget
from infra.aws.queues import dlq_id
from infra.aws.stage import load_stage
from infra.package import render_template
from tests.support.cfn_eval import Evaluator, as_list, ref_names

# DB: the application's login (no superuser); MASTER: the master login, for migrations only.
DB, MASTER = "DATABASE_APP", "DATABASE_URL"
KEYS, HOOK, BOT, AI = "ITACHI_API_KEYS", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY"
MACHINES = "machine-*"
# handler -> (secrets it reads, queues it sends to, whether it creates machine queues)
EXPECTED: dict[str, tuple[set[str], set[str], bool]] = {
    "api": ({DB, KEYS, HOOK, BOT, AI, "GITHUB_WEBHOOK_SECRET", "GITHUB_TOKEN"},
            {"dispatch", "telegram-updates", "telegram-outbox", "ingest", MACHINES}, True),
    "migrations": ({MASTER, DB}, set(), False),
    "functions.dispatch_consumer:handler": ({DB, BOT}, {MACHINES, "telegram-outbox"}, False),
    "functions.telegram_consumer:handler": ({DB, BOT, AI}, {"dispatch", "telegram-outbox", MACHINES}, False),
    "functions.telegram_outbox:handler": ({DB, BOT, AI}, {"telegram-outbox"}, False),
    "functions.ingest_consumer:handler": ({DB, AI}, set(), False),
    "functions.cleanup:handler": ({DB}, set(), False),
    "functions.reminders:handler": ({DB, BOT, AI}, set(), False),
    "functions.review_digest:handler": ({DB, BOT, AI}, set(), False),
    "functions.telegram_outbox:sweep": ({DB, BOT}, {"telegram-outbox"}, False),
    "functions.task_sweep:handler": ({DB, BOT}, {"dispatch", "telegram-outbox"}, False),
    "functions.agent_lifecycle:handler": ({DB, BOT}, {"dispatch", "telegram-outbox", MACHINES}, False),
    "functions.agent_lifecycle:cron": ({DB, BOT}, {"dispatch", "telegram-outbox", MACHINES}, False),
    "functions.effectiveness_decay:handler": ({DB, AI}, set(), False),
    "functions.embed_pending:handler": ({DB, AI}, set(), False),
    "functions.search_facts:handler": ({DB, AI}, set(), False),
    "functions.codeintel:synthesize_sessions": ({DB, AI}, set(), False),
    "functions.codeintel:analyze_edits": ({DB, AI}, set(), False),
    "functions.codeintel:repo_expertise": ({DB, AI}, set(), False),
    "functions.codeintel:extract_style": ({DB, AI}, set(), False),
    "functions.codeintel:cross_project": ({DB, AI}, set(), False),
    "functions.codeintel:index_transcripts": ({DB, AI}, set(), False),
    "functions.codeintel:github_sync": ({DB, "GITHUB_TOKEN"}, set(), False),
    "functions.reflection:handler": ({DB, AI}, set(), False),
    "functions.brain_loop:handler": ({DB, BOT, AI}, set(), False),
    "functions.health_monitor:handler": ({DB, BOT}, set(), False),
    "functions.memory_eviction:handler": ({DB, AI}, set(), False),
}
SECRET_VARS = {"DatabaseUrlSecret": MASTER, "DatabaseAppSecret": DB, "ItachiApiKeysSecret": KEYS,
               "TelegramWebhookSecretSecret": HOOK, "TelegramBotTokenSecret": BOT, "OpenaiApiKeySecret": AI,
               "GithubTokenSecret": "GITHUB_TOKEN", "GithubWebhookSecretSecret": "GITHUB_WEBHOOK_SECRET"}


@pytest.fixture(scope="module", params=["dev", "prod"])
def stage_template(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                   ) -> tuple[str, dict[str, Any]]:
    work = tmp_path_factory.mktemp(f"render-{request.param}")
    return request.param, render_template(request.param, work)


def handler_of(logical_id: str, resource: dict[str, Any]) -> str:
    if logical_id == "APIHandler":
        return "api"
    if logical_id == "MigrationsFunction":
        return "migrations"
    return str(resource["Properties"]["Environment"]["Variables"]["ITACHI_HANDLER"])


def statements_of(role: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for policy in role["Properties"]["Policies"]:
        for statement in policy["PolicyDocument"]["Statement"]:
            if "Fn::If" in statement:
                out += [s for s in statement["Fn::If"][1:] if isinstance(s, dict) and "Effect" in s]
            else:
                out.append(statement)
    return out


def queue_key(resource: Any, prefix: str) -> str:
    text = resource["Fn::Sub"] if isinstance(resource, dict) else str(resource)
    return text.rsplit(":", 1)[1].removeprefix(f"{prefix}-")


def test_every_function_reads_only_its_secrets_and_sends_only_to_its_queues(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    prefix = load_stage(stage).queue_prefix
    functions = {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function"}
    assert {handler_of(k, v) for k, v in functions.items()} == set(EXPECTED)
    for logical_id, fn in functions.items():
        secrets, sends, creates = EXPECTED[handler_of(logical_id, fn)]
        role = template["Resources"][fn["Properties"]["Role"]["Fn::GetAtt"][0]]
        statements = statements_of(role)
        readable = {SECRET_VARS[name] for s in statements if s["Action"] == "secretsmanager:GetSecretValue"
                    for name in ref_names(s["Resource"])}
        assert readable == secrets, logical_id
        env = fn["Properties"]["Environment"]["Variables"]
        named = {k.removesuffix("_SECRET_ID") for k in env if k.endswith("_SECRET_ID")}
        migrations = logical_id == "MigrationsFunction"
        # Every other function connects with the application's login, as its DATABASE_URL.
        assert named == (secrets if migrations else (secrets - {DB}) | {"DATABASE_URL"}), logical_id
        login = "DatabaseUrlSecret" if migrations else "DatabaseAppSecret"
        assert env["DATABASE_URL_SECRET_ID"] == {"Ref": login}, logical_id
        sendable = {queue_key(r, prefix) for s in statements if "sqs:SendMessage" in as_list(s["Action"])
                    for r in as_list(s["Resource"])}
        assert sendable == sends, logical_id
        creators = [s for s in statements if "sqs:CreateQueue" in as_list(s["Action"])]
        assert bool(creators) == creates, logical_id
        assert all(queue_key(r, prefix) == MACHINES for s in creators for r in as_list(s["Resource"]))


def test_only_the_monitors_read_queue_depths_and_only_the_health_monitor_puts_metrics(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    prefix = load_stage(stage).queue_prefix
    readers, metric_writers = set(), set()
    for logical_id, fn in template["Resources"].items():
        if fn["Type"] != "AWS::Serverless::Function":
            continue
        for s in statements_of(template["Resources"][fn["Properties"]["Role"]["Fn::GetAtt"][0]]):
            if s.get("Sid") == "ReadQueueDepths":
                readers.add(handler_of(logical_id, fn))
                keys = {queue_key(r, prefix) for r in as_list(s["Resource"])}
                assert keys == {k for q in QUEUES for k in (q.key, f"{q.key}-dlq")}
                assert set(as_list(s["Action"])) == {"sqs:GetQueueUrl", "sqs:GetQueueAttributes"}
            if "cloudwatch:PutMetricData" in as_list(s["Action"]):
                metric_writers.add(handler_of(logical_id, fn))
                assert s["Condition"] == {"StringEquals": {"cloudwatch:namespace": "Itachi/Health"}}
    assert readers == {"functions.brain_loop:handler", "functions.health_monitor:handler"}
    log_readers = {handler_of(k, fn) for k, fn in template["Resources"].items()
                   if fn["Type"] == "AWS::Serverless::Function"
                   for s in statements_of(template["Resources"][fn["Properties"]["Role"]["Fn::GetAtt"][0]])
                   if "logs:FilterLogEvents" in as_list(s["Action"])}
    assert log_readers == {"functions.telegram_consumer:handler"}
    assert metric_writers == {"functions.health_monitor:handler"}
    health = {k: v for k, v in template["Resources"].items()
              if v["Type"] == "AWS::CloudWatch::Alarm"
              and v["Properties"].get("Namespace") == "Itachi/Health"}
    assert sorted(a["Properties"]["Dimensions"][1]["Value"] for a in health.values()) == [
        "api", "database", "queues"]


def test_no_role_may_change_queue_attributes_or_tags(stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    text = json.dumps(template)
    assert "sqs:SetQueueAttributes" not in text and "sqs:TagQueue" not in text and "sqs:*" not in text


def postgres_ingress(template: dict[str, Any], evaluator: Evaluator) -> list[dict[str, Any]]:
    rules = []
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::EC2::SecurityGroup" or not evaluator.exists(resource):
            continue
        for rule in evaluator.resolve(resource["Properties"].get("SecurityGroupIngress", [])):
            if rule["FromPort"] <= 5432 <= rule["ToPort"]:
                rules.append(rule)
    return rules


def test_the_stage_as_configured_admits_no_internet_address_to_postgres(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    evaluator = Evaluator(template, load_stage(stage).parameters)
    rules = postgres_ingress(template, evaluator)
    assert rules, "the database admits nobody at all"
    assert all("SourceSecurityGroupId" in rule and "CidrIp" not in rule for rule in rules), rules
    assert evaluator.resolve(template["Resources"]["Database"]["Properties"]["PubliclyAccessible"]) is False
    migrations = template["Resources"]["MigrationsFunction"]["Properties"]["VpcConfig"]
    assert evaluator.resolve(migrations)["SecurityGroupIds"] == [{"Ref": "MigrationsSecurityGroup"}]
    assert {"Ref": "MigrationsSecurityGroup"} in [r["SourceSecurityGroupId"] for r in rules]


def accepts(parameter: dict[str, Any], value: str) -> bool:
    """Whether CloudFormation takes `value` for `parameter` (its AllowedPattern must match it whole)."""
    pattern = parameter.get("AllowedPattern")
    return pattern is None or re.fullmatch(pattern, value) is not None


def test_no_parameter_can_give_the_database_a_public_address_or_an_internet_ingress(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    assert template["Resources"]["Database"]["Properties"]["PubliclyAccessible"] is False
    assert not {"NetworkMode", "DbAllowedCidr"} & set(template["Parameters"])
    for proxy in ("true", "false"):
        evaluator = Evaluator(template, {"DbProxyEnabled": proxy})
        rules = postgres_ingress(template, evaluator)
        assert rules and all("CidrIp" not in r and "CidrIpv6" not in r for r in rules), rules
        subnets = evaluator.resolve(template["Resources"]["DbSubnetGroup"]["Properties"]["SubnetIds"])
        assert subnets == [{"Ref": "PrivateSubnetA"}, {"Ref": "PrivateSubnetB"}]


def test_postgres_takes_tls_only_and_clients_verify_its_certificate(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    settings = template["Resources"]["DbParameters"]["Properties"]["Parameters"]
    assert settings["rds.force_ssl"] == "1" and settings["ssl_min_protocol_version"] == "TLSv1.2"
    for fn in (v for v in template["Resources"].values() if v["Type"] == "AWS::Serverless::Function"):
        env = fn["Properties"]["Environment"]["Variables"]
        assert env["DATABASE_SSLMODE"] == "verify-full"
        assert env["DATABASE_SSLROOTCERT"] == "/var/task/certs/rds-ca-bundle.pem"


def test_the_api_may_hold_no_more_connections_than_the_database_has_left_for_it(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    config = load_stage(stage)
    evaluator = Evaluator(template, config.parameters)
    max_connections = int(evaluator.parameter("DbMaxConnections"))
    assert evaluator.resolve(template["Resources"]["DbParameters"]["Properties"]["Parameters"]
                             ["max_connections"]) == str(max_connections)
    pool = int(config.env["ITACHI_DB_POOL_MAX"])
    functions = {k: v["Properties"] for k, v in template["Resources"].items()
                 if v["Type"] == "AWS::Serverless::Function"}
    concurrency = {k: evaluator.resolve(p["ReservedConcurrentExecutions"]) for k, p in functions.items()}
    assert all(isinstance(c, int) and c >= 1 for c in concurrency.values()), concurrency
    serving = sum(concurrency.values()) - concurrency["MigrationsFunction"]  # migrations: in RESERVED
    assert serving * pool + RESERVED <= max_connections
    assert concurrency["APIHandler"] == Budget(max_connections, pool).api_concurrency


def test_schedules_cannot_overlap_themselves(stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    resources = template["Resources"]
    for spec in SCHEDULES:
        [fid] = [k for k, v in resources.items() if v["Type"] == "AWS::Serverless::Function"
                 and v["Properties"]["Environment"]["Variables"].get("ITACHI_HANDLER") == spec.handler]
        assert resources[fid]["Properties"]["ReservedConcurrentExecutions"] == 1
        [config] = [v["Properties"] for v in resources.values()
                    if v["Type"] == "AWS::Lambda::EventInvokeConfig"
                    and v["Properties"]["FunctionName"] == {"Ref": fid}]
        assert config["MaximumRetryAttempts"] == 0
        assert config["MaximumEventAgeInSeconds"] <= max(60, spec.every_s)


def alarms_on(template: dict[str, Any], namespace: str, metric: str) -> list[dict[str, Any]]:
    return [v["Properties"] for v in template["Resources"].values() if v["Type"] == "AWS::CloudWatch::Alarm"
            and v["Properties"].get("Namespace") == namespace and v["Properties"].get("MetricName") == metric]


def test_the_alarms_an_operator_needs_exist(stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    functions = [k for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function"]
    assert len(alarms_on(template, "AWS/ApiGateway", "5XXError")) == 1
    assert len(alarms_on(template, "AWS/ApiGateway", "Latency")) == 1
    ages = alarms_on(template, "AWS/SQS", "ApproximateAgeOfOldestMessage")
    assert len(ages) == len(QUEUES) and all(a["Threshold"] > 0 for a in ages)
    durations = {a["Dimensions"][0]["Value"]["Ref"]: a["Threshold"]
                 for a in alarms_on(template, "AWS/Lambda", "Duration")}
    assert set(durations) == set(functions)
    for fid, threshold in durations.items():
        timeout_ms = template["Resources"][fid]["Properties"]["Timeout"] * 1000
        assert 0.5 * timeout_ms <= threshold < timeout_ms
    for metric in ("CPUCreditBalance", "FreeStorageSpace", "DatabaseConnections"):
        assert len(alarms_on(template, "AWS/RDS", metric)) == 1, metric
    for alarm in (v for v in template["Resources"].values() if v["Type"] == "AWS::CloudWatch::Alarm"):
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": "AlarmTopic"}]


def test_alarms_are_mailed_to_an_address_every_deploy_must_name(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    email = template["Parameters"]["AlarmEmail"]
    assert "Default" not in email
    assert not accepts(email, "") and not accepts(email, "nobody") and accepts(email, "ops@example.com")
    [subscription] = [v for v in template["Resources"].values() if v["Type"] == "AWS::SNS::Subscription"]
    assert "Condition" not in subscription
    assert subscription["Properties"] == {"TopicArn": {"Ref": "AlarmTopic"}, "Protocol": "email",
                                          "Endpoint": {"Ref": "AlarmEmail"}}


def test_every_dead_letter_queue_4xx_rates_and_database_cpu_and_memory_raise_alarms(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    depths = alarms_on(template, "AWS/SQS", "ApproximateNumberOfMessagesVisible")
    watched = {a["Dimensions"][0]["Value"]["Fn::GetAtt"][0] for a in depths}
    assert watched == {dlq_id(spec) for spec in QUEUES}
    assert all(a["Threshold"] == 1 and a["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
               for a in depths)
    [rate] = [v["Properties"] for v in template["Resources"].values() if v["Type"] == "AWS::CloudWatch::Alarm"
              and "4XXError" in json.dumps(v["Properties"].get("Metrics", []))]
    assert next(m for m in rate["Metrics"] if m.get("ReturnData"))["Expression"]
    assert 0 < rate["Threshold"] < 1
    assert len(alarms_on(template, "AWS/RDS", "CPUUtilization")) == 1
    [memory] = alarms_on(template, "AWS/RDS", "FreeableMemory")
    assert memory["ComparisonOperator"] == "LessThanThreshold" and memory["Threshold"] > 0
    # Machine queues are made at run time (the first heartbeat); the API puts an alarm on each
    # one's DLQ as it makes it, to the same topic, and may put no other alarm.
    api = template["Resources"]["APIHandler"]["Properties"]
    assert api["Environment"]["Variables"]["ITACHI_ALARM_TOPIC_ARN"] == {"Ref": "AlarmTopic"}
    prefix = load_stage(stage).queue_prefix
    writers = {}
    for logical_id, fn in template["Resources"].items():
        if fn["Type"] != "AWS::Serverless::Function":
            continue
        for s in statements_of(template["Resources"][fn["Properties"]["Role"]["Fn::GetAtt"][0]]):
            if "cloudwatch:PutMetricAlarm" in as_list(s["Action"]):
                writers[handler_of(logical_id, fn)] = (as_list(s["Action"]), as_list(s["Resource"]))
    alarm_arn = "arn:${AWS::Partition}:cloudwatch:${AWS::Region}:${AWS::AccountId}:alarm:"
    machine_dlqs = {"Fn::Sub": f"{alarm_arn}{prefix}-machine-*-dlq"}
    assert writers == {"api": (["cloudwatch:PutMetricAlarm"], [machine_dlqs])}


def test_the_api_writes_access_logs_and_traces_when_asked(stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    rest = template["Resources"]["RestAPI"]["Properties"]
    assert rest["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogs", "Arn"]}
    fields = json.loads(rest["AccessLogSetting"]["Format"])
    assert {"requestId", "status", "latencyMs"} <= set(fields)
    on = Evaluator(template, {"XRayTracing": "true"})
    off = Evaluator(template, {})
    assert on.resolve(rest["TracingEnabled"]) is True and off.resolve(rest["TracingEnabled"]) is False
    api = template["Resources"]["APIHandler"]["Properties"]
    assert on.resolve(api["Tracing"]) == "Active" and off.resolve(api["Tracing"]) == "PassThrough"


def test_the_stack_owns_no_iam_user_or_group_so_agents_never_block_its_deletion(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    _, template = stage_template
    kinds = {v["Type"] for v in template["Resources"].values()}
    assert not kinds & {"AWS::IAM::User", "AWS::IAM::Group", "AWS::IAM::UserToGroupAddition"}


def test_only_prod_is_protected_from_termination() -> None:
    assert load_stage("prod").termination_protection and not load_stage("dev").termination_protection


def test_only_the_api_may_assume_the_machine_role_which_reads_machine_queues_for_an_hour_at_most(
        stage_template: tuple[str, dict[str, Any]]) -> None:
    stage, template = stage_template
    prefix = load_stage(stage).queue_prefix
    resources = template["Resources"]
    machine_role = resources["MachineQueueRole"]["Properties"]
    path = machine_role["Path"]["Fn::Sub"]
    assumers = {}
    for logical_id, fn in resources.items():
        if fn["Type"] != "AWS::Serverless::Function":
            continue
        for s in statements_of(resources[fn["Properties"]["Role"]["Fn::GetAtt"][0]]):
            if "sts:AssumeRole" in as_list(s["Action"]):
                assumers[handler_of(logical_id, fn)] = s["Resource"]
        env = fn["Properties"]["Environment"]["Variables"]
        assert ("ITACHI_MACHINE_ROLE_ARN" in env) == (logical_id == "APIHandler"), logical_id
    # The API may assume the roles at the stack's machine path, and only the machine role is there.
    assert set(assumers) == {"api"}
    assert assumers["api"]["Fn::Sub"].endswith(f":role{path}*") and "${AWS::StackName}" in path
    assert [k for k, v in resources.items() if v["Type"] == "AWS::IAM::Role"
            and v["Properties"].get("Path") == machine_role["Path"]] == ["MachineQueueRole"]
    env = resources["APIHandler"]["Properties"]["Environment"]["Variables"]
    assert env["ITACHI_MACHINE_ROLE_ARN"] == {"Fn::GetAtt": ["MachineQueueRole", "Arn"]}
    # Only the API's role may assume it, for an hour at most.
    [trust] = machine_role["AssumeRolePolicyDocument"]["Statement"]
    assert trust == {"Effect": "Allow", "Principal": {"AWS": {"Fn::GetAtt": ["APIHandlerRole", "Arn"]}},
                     "Action": "sts:AssumeRole"}
    assert machine_role["MaxSessionDuration"] == 3600
    # What it may do: read, delete and extend messages on machine queues; nothing else anywhere.
    statements = [s for p in machine_role["Policies"] for s in p["PolicyDocument"]["Statement"]]
    assert all(s["Effect"] == "Allow" for s in statements)
    actions = {a for s in statements for a in as_list(s["Action"])}
    assert {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"} <= actions
    assert actions <= {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility",
                       "sqs:GetQueueUrl", "sqs:GetQueueAttributes"}
    assert {queue_key(r, prefix) for s in statements for r in as_list(s["Resource"])} == {MACHINES}
