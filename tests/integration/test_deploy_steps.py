"""Deploy steps against real local parts: the migrations custom resource on Postgres, the artifacts
bucket and stack parameters on moto, and the Lambda entry's logs."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest

from functions import migrate_on_deploy
from infra.aws.stage import StageConfig, load_stage
from infra.deploy import ROLLBACK_WINDOW_DAYS, SUPERSEDED_TAG, Deployer, with_code_location


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


def _moto_env(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    for name, value in (("AWS_ENDPOINT_URL", endpoint), ("AWS_ACCESS_KEY_ID", "local"),
                        ("AWS_SECRET_ACCESS_KEY", "local"), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)


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


def test_the_code_a_stack_runs_never_expires_and_a_superseded_one_lasts_the_rollback_window(
        moto_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    _moto_env(monkeypatch, moto_endpoint)
    session = boto3.session.Session()
    deployer = Deployer(load_stage("dev"), session)
    bucket = deployer.artifact_bucket()
    s3 = session.client("s3")
    rules = s3.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    expiring = [r for r in rules if "Expiration" in r]
    assert expiring
    for rule in expiring:  # only superseded code, or templates, ever expire
        assert rule["Filter"].get("Tag") == {"Key": SUPERSEDED_TAG, "Value": "true"} or \
            rule["Filter"].get("Prefix") == "templates/"
        assert rule["Expiration"]["Days"] >= ROLLBACK_WINDOW_DAYS
    artifact = tmp_path / "lambda.zip"
    artifact.write_bytes(b"code")
    deployer.upload(bucket, "lambda/old.zip", artifact)
    deployer.upload(bucket, "lambda/live.zip", artifact)
    deployer.supersede(bucket, "lambda/old.zip")
    tagged = s3.get_object_tagging(Bucket=bucket, Key="lambda/old.zip")["TagSet"]
    assert tagged == [{"Key": SUPERSEDED_TAG, "Value": "true"}]
    assert s3.get_object(Bucket=bucket, Key="lambda/old.zip")["Body"].read() == b"code"  # still there
    assert s3.get_object_tagging(Bucket=bucket, Key="lambda/live.zip")["TagSet"] == []


def test_a_deploy_turns_on_termination_protection_where_the_stage_asks_for_it() -> None:
    # moto does not implement UpdateTerminationProtection; botocore's Stubber checks the request
    # against the real API model instead.
    from botocore.stub import Stubber

    for name in ("prod", "dev"):
        stage = load_stage(name)
        deployer = Deployer(stage, boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="x",
                                                         region_name="us-east-1"))
        with Stubber(deployer.cfn) as stub:
            stub.add_response("update_termination_protection", {"StackId": "id"}, {
                "StackName": stage.stack_name, "EnableTerminationProtection": name == "prod"})
            deployer.protect()
            stub.assert_no_pending_responses()


def _stack_with_alarm_email(stage: StageConfig, address: str) -> None:
    cfn = boto3.session.Session().client("cloudformation")
    cfn.create_stack(StackName=stage.stack_name, TemplateBody=json.dumps({
        "Parameters": {"AlarmEmail": {"Type": "String"}},
        "Resources": {"Marker": {"Type": "AWS::SQS::Queue", "Properties": {}}}}),
        Parameters=[{"ParameterKey": "AlarmEmail", "ParameterValue": address}])
    cfn.get_waiter("stack_create_complete").wait(StackName=stage.stack_name,
                                                 WaiterConfig={"Delay": 1, "MaxAttempts": 30})


def test_a_deploy_that_names_no_alarm_address_is_refused_before_anything_is_uploaded(
        moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _moto_env(monkeypatch, moto_endpoint)
    stage = replace(load_stage("dev"), app_name=f"a{uuid.uuid4().hex[:8]}")
    deployer = Deployer(stage, boto3.session.Session())
    # The manifest names no real file: a deploy that got as far as uploading would fail otherwise.
    manifest = {"code": {"sha256": "0" * 64, "file": "absent.zip"}, "template": "absent.json"}
    for given in ({}, {"AlarmEmail": ""}, {"AlarmEmail": "nobody"}):
        with pytest.raises(SystemExit, match=r"AlarmEmail=you@example\.com"):
            deployer.deploy(manifest, given)
    _stack_with_alarm_email(stage, "")  # a stack made before the address was required
    with pytest.raises(SystemExit, match="AlarmEmail"):
        deployer.deploy(manifest, {})


def test_an_update_keeps_the_alarm_address_the_stack_already_mails(
        moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _moto_env(monkeypatch, moto_endpoint)
    stage = replace(load_stage("prod"), app_name=f"a{uuid.uuid4().hex[:8]}")
    deployer = Deployer(stage, boto3.session.Session())
    assert deployer.alarm_address({"AlarmEmail": "new@example.com"}) == "new@example.com"
    _stack_with_alarm_email(stage, "ops@example.com")
    assert deployer.alarm_address({}) == "ops@example.com"
    assert deployer.alarm_address({"AlarmEmail": "new@example.com"}) == "new@example.com"
