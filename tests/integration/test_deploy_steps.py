"""Deploy steps against real local parts: the migrations custom resource on Postgres, machine
credentials on moto, and the Lambda entry's logs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest

from functions import migrate_on_deploy
from infra.aws.stage import load_stage
from infra.deploy import Deployer, with_code_location


class ResponseUrl:
    """CloudFormation's pre-signed reply URL, played by a local server that keeps each PUT body."""

    def __init__(self) -> None:
        bodies: list[dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_PUT(self) -> None:
                bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.bodies = bodies
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/reply"


@pytest.fixture
def response_url() -> Iterator[ResponseUrl]:
    fake = ResponseUrl()
    yield fake
    fake.server.shutdown()


def custom_resource_event(url: str, request_type: str = "Update") -> dict[str, Any]:
    return {"RequestType": request_type, "ResponseURL": url, "StackId": "stack", "RequestId": "r1",
            "LogicalResourceId": "SchemaMigrations", "ResourceProperties": {"DeployId": "d1"}}


@pytest.fixture
def migration_env(monkeypatch: pytest.MonkeyPatch, database_url: str, tmp_path: Any) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("ITACHI_HOME", str(tmp_path))
    for name in ("ITACHI_EMBEDDING_PROVIDER", "OPENAI_API_KEY", "ITACHI_EMBEDDING_DIM"):
        monkeypatch.delenv(name, raising=False)


def test_migrations_resource_answers_success_with_what_it_applied(
        migration_env: None, response_url: ResponseUrl, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ITACHI_MIN_PGVECTOR", "0.5.0")
    migrate_on_deploy.handler(custom_resource_event(response_url.url), None)
    [reply] = response_url.bodies
    assert reply["Status"] == "SUCCESS", reply
    assert reply["Data"]["Applied"] == "none"  # the test database is already migrated
    assert reply["PhysicalResourceId"] == migrate_on_deploy.PHYSICAL_ID


def test_migrations_resource_fails_the_deploy_when_pgvector_is_too_old(
        migration_env: None, response_url: ResponseUrl, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ITACHI_MIN_PGVECTOR", "99.0.0")
    migrate_on_deploy.handler(custom_resource_event(response_url.url), None)
    [reply] = response_url.bodies
    assert reply["Status"] == "FAILED"
    assert "pgvector" in reply["Reason"] and "DbEngineVersion" in reply["Reason"]


def test_migrations_resource_does_nothing_on_delete(response_url: ResponseUrl,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    migrate_on_deploy.handler(custom_resource_event(response_url.url, "Delete"), None)
    assert response_url.bodies[0]["Status"] == "SUCCESS"


def test_uploaded_code_location_replaces_every_local_code_path() -> None:
    template = {"Resources": {
        "A": {"Type": "AWS::Serverless::Function", "Properties": {"CodeUri": "./lambda.zip"}},
        "B": {"Type": "AWS::Serverless::Function", "Properties": {"CodeUri": "./lambda.zip"}},
        "Q": {"Type": "AWS::SQS::Queue", "Properties": {}}}}
    out = with_code_location(template, "bucket", "lambda/abc.zip")
    assert {r["Properties"].get("CodeUri", {}).get("Key") for r in out["Resources"].values()} == {
        "lambda/abc.zip", None}


def test_add_machine_creates_its_queue_and_a_user_tagged_for_that_queue_only(
        moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("AWS_ENDPOINT_URL", moto_endpoint), ("AWS_ACCESS_KEY_ID", "local"),
                        ("AWS_SECRET_ACCESS_KEY", "local"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    stage = load_stage("dev")
    session = boto3.session.Session()  # not boto3's process-wide default, which earlier tests shaped
    # A stand-in for the deployed stack: the agents group and the output that names it.
    session.client("iam").create_group(GroupName="itachi-dev-agents", Path="/itachi/")
    cfn = session.client("cloudformation")
    cfn.create_stack(StackName=stage.stack_name, TemplateBody=json.dumps({
        "Resources": {"Marker": {"Type": "AWS::SQS::Queue", "Properties": {}}},
        "Outputs": {"AgentsGroup": {"Value": "itachi-dev-agents"}}}))
    cfn.get_waiter("stack_create_complete").wait(StackName=stage.stack_name,
                                                 WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    created = Deployer(stage, session).add_machine("laptop-1")
    sqs = session.client("sqs")
    url = sqs.get_queue_url(QueueName="itachi-dev-machine-laptop-1")["QueueUrl"]
    redrive = json.loads(sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])
                         ["Attributes"]["RedrivePolicy"])
    assert redrive["deadLetterTargetArn"].endswith(":itachi-dev-machine-laptop-1-dlq")
    iam = session.client("iam")
    tags = iam.list_user_tags(UserName=created["user"])["Tags"]
    assert {"Key": "itachi-machine", "Value": "laptop-1"} in tags
    assert created["AWS_ACCESS_KEY_ID"] and created["AWS_SECRET_ACCESS_KEY"]
    assert [g["GroupName"] for g in iam.list_groups_for_user(UserName=created["user"])["Groups"]]


def test_add_machine_refuses_an_id_that_could_reach_other_queues(moto_endpoint: str) -> None:
    with pytest.raises(SystemExit):
        Deployer(load_stage("dev"), boto3.session.Session(region_name="us-east-1")).add_machine("*")


def test_an_update_keeps_every_parameter_it_is_not_given(moto_endpoint: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("AWS_ENDPOINT_URL", moto_endpoint), ("AWS_ACCESS_KEY_ID", "local"),
                        ("AWS_SECRET_ACCESS_KEY", "local"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    stage = load_stage("prod")
    cfn = boto3.session.Session().client("cloudformation")
    cfn.create_stack(StackName=stage.stack_name, TemplateBody=json.dumps({
        "Parameters": {"AlarmEmail": {"Type": "String"}, "TelegramChatId": {"Type": "String"}},
        "Resources": {"Marker": {"Type": "AWS::SQS::Queue", "Properties": {}}}}),
        Parameters=[{"ParameterKey": "AlarmEmail", "ParameterValue": "me@example.com"},
                    {"ParameterKey": "TelegramChatId", "ParameterValue": "-100"}])
    cfn.get_waiter("stack_create_complete").wait(StackName=stage.stack_name,
                                                 WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    deployer = Deployer(stage, boto3.session.Session())
    params = deployer.parameter_list({"TelegramChatId": "-200"},
                                     {"AlarmEmail", "TelegramChatId", "NewInThisVersion"}, exists=True)
    assert params == [{"ParameterKey": "TelegramChatId", "ParameterValue": "-200"},
                      {"ParameterKey": "AlarmEmail", "UsePreviousValue": True}]
    with pytest.raises(SystemExit, match="NoSuchParameter"):
        deployer.parameter_list({"NoSuchParameter": "x"}, {"AlarmEmail"}, exists=True)
