"""The packaged production template: cfn-lint clean, built offline, and true to the two tables.

One `python -m infra.package` run (without a network where the machine allows it;
`tests/support/lambda_package.py`) feeds every test. The SQS, EventBridge and IAM part is deployed
into moto server's CloudFormation and checked through the AWS APIs.
"""

from __future__ import annotations

import json
import subprocess
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.schedule_table import SCHEDULES
from infra.aws.secrets import SECRETS
from tests.conftest import REPO_ROOT

STAGE = "prod"
PREFIX = "itachi-prod"
MOTO_TYPES = {"AWS::SQS::Queue", "AWS::Events::Rule", "AWS::IAM::Role", "AWS::Logs::LogGroup",
              "AWS::SecretsManager::Secret"}
FAKE_FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:{}"


@pytest.fixture(scope="module")
def dist(lambda_package: Callable[[str | None], Path]) -> Path:
    return lambda_package(None)


@pytest.fixture(scope="module")
def template(dist: Path) -> dict[str, Any]:
    return json.loads((dist / "template.json").read_text())  # type: ignore[no-any-return]


def resources_of(template: dict[str, Any], kind: str) -> dict[str, Any]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def function_for_handler(template: dict[str, Any], handler: str) -> str:
    matches = [k for k, v in resources_of(template, "AWS::Serverless::Function").items()
               if v["Properties"]["Environment"]["Variables"].get("ITACHI_HANDLER") == handler]
    assert len(matches) == 1, f"{handler}: {matches}"
    return matches[0]


def test_package_builds_offline_and_passes_cfn_lint(dist: Path) -> None:
    result = subprocess.run([str(REPO_ROOT / ".venv" / "bin" / "cfn-lint"), str(dist / "template.json")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_lambda_zip_is_far_below_the_limit_and_carries_compiled_modules(dist: Path) -> None:
    manifest = json.loads((dist / "manifest.json").read_text())
    assert manifest["code"]["unzipped_bytes"] < 150 * 1024 * 1024
    with zipfile.ZipFile(dist / "lambda.zip") as zf:
        names = set(zf.namelist())
    assert "app.py" in names and "__pycache__/app.cpython-311.pyc" in names
    assert "functions/__pycache__/lambda_entry.cpython-311.pyc" in names
    assert "chalicelib/migrations/0001_foundation.sql" in names
    assert "certs/rds-ca-bundle.pem" in names  # what DATABASE_SSLROOTCERT names
    assert not any(n.startswith(("torch/", "infra/local/", "tests/", "agent/", "hooks/")) for n in names)
    # the console's libraries as npm installed them: the served files only
    assert "chalicelib/console/assets/node_modules/htmx.org/dist/htmx.min.js" in names
    assert "chalicelib/console/assets/node_modules/chart.js/dist/chart.umd.min.js" in names
    assert {n for n in names if "node_modules" in n and not n.endswith(".min.js")} == set()


def test_every_queue_has_a_dlq_and_visibility_six_times_its_consumer_timeout(
        template: dict[str, Any]) -> None:
    queues = resources_of(template, "AWS::SQS::Queue")
    by_name = {q["Properties"]["QueueName"]: (k, q["Properties"]) for k, q in queues.items()}
    mappings = resources_of(template, "AWS::Lambda::EventSourceMapping").values()
    functions = resources_of(template, "AWS::Serverless::Function")
    for spec in QUEUES:
        logical, props = by_name[f"{PREFIX}-{spec.key}"]
        dlq = props["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
        assert queues[dlq]["Properties"]["QueueName"] == f"{PREFIX}-{spec.key}-dlq"
        assert props["RedrivePolicy"]["maxReceiveCount"] == spec.max_receive_count
        consumers = [m["Properties"] for m in mappings
                     if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [logical, "Arn"]}]
        assert len(consumers) == (1 if spec.consumer else 0)
        for mapping in consumers:
            assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
            function = mapping["FunctionName"]["Ref"]
            assert function == function_for_handler(template, spec.consumer or "")
            assert props["VisibilityTimeout"] >= 6 * functions[function]["Properties"]["Timeout"]


def test_every_schedule_becomes_exactly_one_rule_targeting_its_function(template: dict[str, Any]) -> None:
    rules = resources_of(template, "AWS::Events::Rule")
    permissions = [p["Properties"] for p in resources_of(template, "AWS::Lambda::Permission").values()]
    assert len(rules) == len(SCHEDULES)
    for spec in SCHEDULES:
        function = function_for_handler(template, spec.handler)
        targeting = [k for k, r in rules.items()
                     if [t["Arn"] for t in r["Properties"]["Targets"]] == [{"Fn::GetAtt": [function, "Arn"]}]]
        assert len(targeting) == 1, spec.name
        assert rules[targeting[0]]["Properties"]["ScheduleExpression"] == spec.rate_expression
        assert any(p["SourceArn"] == {"Fn::GetAtt": [targeting[0], "Arn"]}
                   and p["Principal"] == "events.amazonaws.com" for p in permissions)


def iam_statements(node: Any) -> Iterator[dict[str, Any]]:
    """Every statement of every policy document anywhere in the template (Fn::If branches included)."""
    if isinstance(node, dict):
        if "Statement" in node and isinstance(node["Statement"], list):
            for statement in node["Statement"]:
                if isinstance(statement, dict) and "Fn::If" in statement:
                    yield from (s for s in statement["Fn::If"][1:] if isinstance(s, dict) and "Effect" in s)
                elif isinstance(statement, dict):
                    yield statement
        for value in node.values():
            yield from iam_statements(value)
    elif isinstance(node, list):
        for value in node:
            yield from iam_statements(value)


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_no_iam_statement_grants_everything_on_everything(template: dict[str, Any]) -> None:
    statements = list(iam_statements(template["Resources"]))
    assert len(statements) > 10
    for statement in statements:
        if statement.get("Effect") != "Allow":
            continue
        actions = as_list(statement.get("Action", []))
        resources = as_list(statement.get("Resource", []))
        assert not ("*" in actions and "*" in resources), statement
        assert not any(isinstance(a, str) and a.endswith(":*") for a in actions), statement


def test_the_api_answers_unknown_paths_with_404_like_the_local_server(template: dict[str, Any]) -> None:
    body = template["Resources"]["RestAPI"]["Properties"]["DefinitionBody"]
    responses = body["x-amazon-apigateway-gateway-responses"]
    assert responses["MISSING_AUTHENTICATION_TOKEN"]["statusCode"] == "404"


def test_every_function_runs_after_migrations_and_logs_with_retention(template: dict[str, Any]) -> None:
    functions = resources_of(template, "AWS::Serverless::Function")
    groups = resources_of(template, "AWS::Logs::LogGroup")
    for logical, fn in functions.items():
        if logical != "MigrationsFunction":
            assert fn["DependsOn"] == ["SchemaMigrations"], logical
        group = fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert groups[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    assert template["Resources"]["SchemaMigrations"]["Properties"]["DeployId"] == {"Ref": "DeployId"}


def test_secret_values_never_appear_in_the_template_or_the_stage_config(template: dict[str, Any]) -> None:
    secrets = resources_of(template, "AWS::SecretsManager::Secret")
    assert len(secrets) == len(SECRETS)
    for secret in secrets.values():
        props = secret["Properties"]
        assert "GenerateSecretString" in props or props["SecretString"] == "unset"
    env = template["Resources"]["APIHandler"]["Properties"]["Environment"]["Variables"]
    assert env["TELEGRAM_BOT_TOKEN_SECRET_ID"] == {"Ref": "TelegramBotTokenSecret"}
    assert not any(k in env for k in ("TELEGRAM_BOT_TOKEN", "OPENAI_API_KEY", "DATABASE_URL"))


def moto_subset(template: dict[str, Any]) -> dict[str, Any]:
    """The SQS, EventBridge and IAM resources, with references to functions replaced by fake ARNs."""
    kept = {k: v for k, v in template["Resources"].items()
            if v["Type"] in MOTO_TYPES and "Condition" not in v}
    names = set(kept) | set(template["Parameters"])

    def fix(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {"Ref"} and node["Ref"] not in names and not node["Ref"].startswith("AWS::"):
                return FAKE_FUNCTION_ARN.format(node["Ref"])
            if set(node) == {"Fn::GetAtt"} and node["Fn::GetAtt"][0] not in kept:
                return FAKE_FUNCTION_ARN.format(node["Fn::GetAtt"][0])
            return {k: fix(v) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(v) for v in node]
        return node

    return {"AWSTemplateFormatVersion": "2010-09-09", "Parameters": template["Parameters"],
            "Conditions": template["Conditions"], "Resources": fix(kept)}


def test_queues_rules_and_iam_deploy_in_moto_cloudformation_and_delete(
        template: dict[str, Any], moto_endpoint: str) -> None:
    kw: dict[str, Any] = {"endpoint_url": moto_endpoint, "region_name": "us-east-1",
                          "aws_access_key_id": "local", "aws_secret_access_key": "local"}
    cfn = boto3.client("cloudformation", **kw)
    stack = f"itachi-test-{int(time.time() * 1000)}"
    cfn.create_stack(StackName=stack, TemplateBody=json.dumps(moto_subset(template)),
                     Capabilities=["CAPABILITY_IAM"],  # AlarmEmail has no default: a stack names it
                     Parameters=[{"ParameterKey": "AlarmEmail", "ParameterValue": "ops@example.com"}])
    status = "CREATE_IN_PROGRESS"
    for _ in range(100):
        status = cfn.describe_stacks(StackName=stack)["Stacks"][0]["StackStatus"]
        if not status.endswith("IN_PROGRESS"):
            break
        time.sleep(0.2)
    assert status == "CREATE_COMPLETE"
    sqs = boto3.client("sqs", **kw)
    for spec in QUEUES:
        url = sqs.get_queue_url(QueueName=f"{PREFIX}-{spec.key}")["QueueUrl"]
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        redrive = json.loads(attrs["RedrivePolicy"])
        assert redrive["deadLetterTargetArn"].endswith(f":{PREFIX}-{spec.key}-dlq")
        assert int(redrive["maxReceiveCount"]) == spec.max_receive_count
        assert int(attrs["VisibilityTimeout"]) >= 6 * spec.consumer_timeout_s
    events = boto3.client("events", **kw)
    rules = [r for r in events.list_rules(NamePrefix=stack)["Rules"]]
    assert len(rules) == len(SCHEDULES)
    for schedule in SCHEDULES:
        wanted = FAKE_FUNCTION_ARN.format(function_for_handler(template, schedule.handler))
        hits = [r for r in rules if [t["Arn"] for t in events.list_targets_by_rule(Rule=r["Name"])["Targets"]]
                == [wanted]]
        assert len(hits) == 1 and hits[0]["ScheduleExpression"] == schedule.rate_expression
    cfn.delete_stack(StackName=stack)
    cfn.get_waiter("stack_delete_complete").wait(StackName=stack,
                                                 WaiterConfig={"Delay": 1, "MaxAttempts": 60})
    deleted = [s for s in cfn.list_stacks()["StackSummaries"] if s["StackName"] == stack]
    assert deleted and deleted[0]["StackStatus"] == "DELETE_COMPLETE"
