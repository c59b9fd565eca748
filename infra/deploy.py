"""`make deploy STAGE=...`: package, upload, deploy the stack (migrations run inside it), print the URLs.

Needs AWS credentials (any boto3 source: environment, profile, SSO). Commands:
  deploy [--stage S] [--param Key=Value ...]   build dist/, upload, create or update the stack
  migrate [--stage S]                          run the migrations function now and print its answer
  outputs [--stage S]                          print the stack's outputs
Values of user secrets are taken from TELEGRAM_BOT_TOKEN / OPENAI_API_KEY in the environment of
`make deploy`, if set, and put into Secrets Manager; they never enter a file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from infra.aws.secrets import USER_SECRETS
from infra.aws.stage import REPO_ROOT, StageConfig, load_stage
from infra.template import ALARM_EMAIL_PATTERN

DIST = REPO_ROOT / "dist"
SUPERSEDED_TAG = "itachi-superseded"
# A superseded artifact stays this long after the deploy that replaced it (a manual rollback to it
# redeploys it); the artifact a stack runs carries no tag and never expires, so a rollback always
# finds it. Templates are read only while a change set is created.
ROLLBACK_WINDOW_DAYS = 30
LIFECYCLE = {"Rules": [
    {"ID": "expire-superseded-code", "Status": "Enabled",
     "Filter": {"Tag": {"Key": SUPERSEDED_TAG, "Value": "true"}},
     "Expiration": {"Days": ROLLBACK_WINDOW_DAYS}},
    {"ID": "expire-templates", "Status": "Enabled", "Filter": {"Prefix": "templates/"},
     "Expiration": {"Days": ROLLBACK_WINDOW_DAYS}}]}
CAPABILITIES = ["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"]
WEBHOOK_PATH = "/telegram/webhook"


def with_code_location(template: dict[str, Any], bucket: str, key: str) -> dict[str, Any]:
    """Point every function's CodeUri at the uploaded zip (what `aws cloudformation package` does)."""
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::Serverless::Function":
            resource["Properties"]["CodeUri"] = {"Bucket": bucket, "Key": key}
    return template


def parse_params(pairs: list[str]) -> dict[str, str]:
    params = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--param wants Key=Value, got {pair!r}")
        params[key] = value
    return params


class Deployer:
    def __init__(self, stage: StageConfig, session: Any | None = None) -> None:
        import boto3

        self.stage = stage
        self.session = session or boto3.session.Session()
        self.region = self.session.region_name or "us-east-1"
        self.cfn = self.session.client("cloudformation", region_name=self.region)

    def client(self, name: str) -> Any:
        return self.session.client(name, region_name=self.region)

    # --- artifacts ---------------------------------------------------------------------------
    def artifact_bucket(self) -> str:
        account = self.client("sts").get_caller_identity()["Account"]
        bucket = f"itachi-artifacts-{account}-{self.region}"
        s3 = self.client("s3")
        try:
            s3.head_bucket(Bucket=bucket)
        except s3.exceptions.ClientError:
            kwargs: dict[str, Any] = {"Bucket": bucket}
            if self.region != "us-east-1":
                kwargs["CreateBucketConfiguration"] = {"LocationConstraint": self.region}
            s3.create_bucket(**kwargs)
            s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
                "BlockPublicAcls": True, "IgnorePublicAcls": True, "BlockPublicPolicy": True,
                "RestrictPublicBuckets": True})
        # Every deploy (re)writes the rules, so a bucket made by an older version gets them too.
        s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration=LIFECYCLE)
        return bucket

    def deployed_code_key(self) -> str | None:
        """The artifact the stack runs now: what a rollback of the next update returns to."""
        if not self.stack_exists():
            return None
        body = self.cfn.get_template(StackName=self.stage.stack_name,
                                     TemplateStage="Original")["TemplateBody"]
        template = json.loads(body) if isinstance(body, str) else body
        for resource in template.get("Resources", {}).values():
            code = resource.get("Properties", {}).get("CodeUri")
            if resource.get("Type") == "AWS::Serverless::Function" and isinstance(code, dict):
                return str(code.get("Key"))
        return None

    def supersede(self, bucket: str, key: str) -> None:
        """Start the rollback window of an artifact no stack runs any more: tag it and restart its
        age (an in-place copy), so the lifecycle rule expires it ROLLBACK_WINDOW_DAYS from now."""
        s3 = self.client("s3")
        try:
            s3.copy_object(Bucket=bucket, Key=key, CopySource={"Bucket": bucket, "Key": key},
                           MetadataDirective="REPLACE", TaggingDirective="REPLACE",
                           Tagging=f"{SUPERSEDED_TAG}=true")
        except s3.exceptions.ClientError as exc:
            print(f"could not mark {key} superseded ({exc}); it stays until deleted by hand", file=sys.stderr)

    def upload(self, bucket: str, key: str, path: Path) -> None:
        s3 = self.client("s3")
        try:
            s3.head_object(Bucket=bucket, Key=key)
            return  # same content, same key: already there
        except s3.exceptions.ClientError:
            s3.upload_file(str(path), bucket, key)

    # --- stack ---------------------------------------------------------------------------------
    def stack_exists(self) -> bool:
        try:
            stacks = self.cfn.describe_stacks(StackName=self.stage.stack_name)["Stacks"]
        except self.cfn.exceptions.ClientError:
            return False
        return bool(stacks) and stacks[0]["StackStatus"] != "REVIEW_IN_PROGRESS"

    def deploy(self, manifest: dict[str, Any], overrides: dict[str, str]) -> dict[str, str]:
        self.alarm_address({**self.stage.parameters, **overrides})
        bucket = self.artifact_bucket()
        code = manifest["code"]
        code_key = f"lambda/{code['sha256']}.zip"
        previous_key = self.deployed_code_key()
        self.upload(bucket, code_key, DIST / code["file"])
        template = with_code_location(json.loads((DIST / manifest["template"]).read_text()), bucket, code_key)
        body = json.dumps(template).encode()
        template_key = f"templates/{self.stage.stack_name}-{int(time.time())}.json"
        self.client("s3").put_object(Bucket=bucket, Key=template_key, Body=body)
        url = f"https://{bucket}.s3.{self.region}.amazonaws.com/{template_key}"
        params = {**self.stage.parameters, **overrides,
                  "DeployId": time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())}
        exists = self.stack_exists()
        parameters = self.parameter_list(params, set(template.get("Parameters", {})), exists)
        if exists:
            self.put_user_secrets()
        name = f"deploy-{params['DeployId'].replace('T', '-').rstrip('Z')}"
        self.cfn.create_change_set(
            StackName=self.stage.stack_name, ChangeSetName=name, TemplateURL=url,
            ChangeSetType="UPDATE" if exists else "CREATE", Capabilities=CAPABILITIES,
            Parameters=parameters,
            Tags=[{"Key": "itachi:stage", "Value": self.stage.stage}])
        self.cfn.get_waiter("change_set_create_complete").wait(
            StackName=self.stage.stack_name, ChangeSetName=name,
            WaiterConfig={"Delay": 5, "MaxAttempts": 120})
        self.cfn.execute_change_set(StackName=self.stage.stack_name, ChangeSetName=name)
        print(f"deploying {self.stage.stack_name} ({'update' if exists else 'create'}; a first create "
              f"takes 15-25 minutes, mostly RDS)...", flush=True)
        waiter = "stack_update_complete" if exists else "stack_create_complete"
        try:
            self.cfn.get_waiter(waiter).wait(StackName=self.stage.stack_name,
                                             WaiterConfig={"Delay": 15, "MaxAttempts": 240})
        except Exception:
            self.print_failures()
            if code_key != previous_key:
                self.supersede(bucket, code_key)  # rolled back: this artifact never ran
            raise
        if previous_key and previous_key != code_key:
            self.supersede(bucket, previous_key)
        self.protect()
        if not exists:
            self.put_user_secrets()
        return self.outputs()

    def protect(self) -> None:
        """Termination protection as the stage says (on for prod): delete-stack is refused while on."""
        self.cfn.update_termination_protection(StackName=self.stage.stack_name,
                                               EnableTerminationProtection=self.stage.termination_protection)

    def parameter_list(self, given: dict[str, str], declared: set[str], exists: bool) -> list[dict[str, Any]]:
        """Given values; on an update, every other parameter keeps its previous value (not the default)."""
        unknown = set(given) - declared
        if unknown:
            raise SystemExit(f"the template has no parameter {', '.join(sorted(unknown))}")
        previous = set(self.previous_parameters()) if exists else set()
        out: list[dict[str, Any]] = [{"ParameterKey": k, "ParameterValue": v} for k, v in given.items()]
        keep = (declared & previous) - set(given)
        out += [{"ParameterKey": k, "UsePreviousValue": True} for k in sorted(keep)]
        return out

    def previous_parameters(self) -> dict[str, str]:
        stack = self.cfn.describe_stacks(StackName=self.stage.stack_name)["Stacks"][0]
        return {p["ParameterKey"]: p.get("ParameterValue", "") for p in stack.get("Parameters", [])}

    def alarm_address(self, given: dict[str, str]) -> str:
        """Where alarms are mailed: given now, or kept from the stack. No address, no deploy."""
        address = given.get("AlarmEmail")
        if address is None and self.stack_exists():
            address = self.previous_parameters().get("AlarmEmail")
        if not re.fullmatch(ALARM_EMAIL_PATTERN, address or ""):
            raise SystemExit(
                f"{self.stage.stack_name} needs an address for its alarms (a DLQ filling up, the API "
                f"failing, the database running out): make deploy STAGE={self.stage.stage} "
                f"PARAMS=\"AlarmEmail=you@example.com\", then confirm the mail AWS SNS sends there")
        return str(address)

    def outputs(self) -> dict[str, str]:
        stack = self.cfn.describe_stacks(StackName=self.stage.stack_name)["Stacks"][0]
        return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}

    def print_failures(self) -> None:
        events = self.cfn.describe_stack_events(StackName=self.stage.stack_name)["StackEvents"]
        for event in events[:40]:
            if event["ResourceStatus"].endswith("FAILED"):
                print(f"  {event['LogicalResourceId']}: {event.get('ResourceStatusReason', '')}",
                      file=sys.stderr)

    def put_user_secrets(self) -> None:
        sm = self.client("secretsmanager")
        for spec in USER_SECRETS:
            value = os.environ.get(spec.var)
            if value:
                sm.put_secret_value(SecretId=self.stage.secret_name(spec.var), SecretString=value)
                print(f"stored {spec.var} in {self.stage.secret_name(spec.var)}")

    def migrate(self) -> dict[str, Any]:
        name = self.outputs()["MigrationsFunctionName"]
        response = self.client("lambda").invoke(FunctionName=name, Payload=b'{"RequestType": "Update"}')
        payload = json.loads(response["Payload"].read() or b"{}")
        if response.get("FunctionError"):
            raise SystemExit(f"migrations failed: {payload.get('errorMessage', payload)}")
        return payload  # type: ignore[no-any-return]


def print_next_steps(region: str, outputs: dict[str, str]) -> None:
    api = outputs.get("ApiUrl", "?")
    webhook_arn = outputs.get("TelegramWebhookSecretSecretArn", "?")
    token_arn = outputs.get("TelegramBotTokenSecretArn", "?")
    keys_arn = outputs.get("ItachiApiKeysSecretArn", "?")
    read = "aws secretsmanager get-secret-value --query SecretString --output text --secret-id"
    print(f"\nAPI URL: {api}")
    print(f"migrations applied: {outputs.get('MigrationsApplied', '?')}; "
          f"pgvector {outputs.get('PgvectorVersion', '?')}")
    print("\nPoint Telegram at the webhook (itachi reads the bot token and the deployed webhook secret")
    print("from Secrets Manager with your AWS credentials; the values never touch the shell):")
    print(f"  AWS_DEFAULT_REGION={region} TELEGRAM_BOT_TOKEN_SECRET_ID={token_arn} \\")
    print(f"  TELEGRAM_WEBHOOK_SECRET_SECRET_ID={webhook_arn} \\")
    print(f"  itachi telegram set-webhook {api}{WEBHOOK_PATH}")
    print("\nJoin each machine with a key of its own (the admin key stays where you administer from):")
    print(f"  ITACHI_API_URL={api} ITACHI_API_KEY=$({read} {keys_arn} | cut -d, -f1) \\")
    print("  itachi machines invite --machine <id>     # then run the printed `itachi join ...` there")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.deploy", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("deploy", "migrate", "outputs"):
        p = sub.add_parser(name)
        p.add_argument("--stage", default=os.environ.get("STAGE", "prod"))
        if name == "deploy":
            p.add_argument("--param", action="append", default=[], help="Key=Value template parameter")
            p.add_argument("--skip-package", action="store_true", help="deploy dist/ as it is")
    args = parser.parse_args(argv)
    stage = load_stage(args.stage)
    deployer = Deployer(stage)
    if args.command == "deploy":
        if args.skip_package:
            manifest = json.loads((DIST / "manifest.json").read_text())
            if manifest.get("stage") != stage.stage:
                raise SystemExit(f"dist/ was built for stage {manifest.get('stage')!r}: run make package")
        else:
            from infra.package import build

            manifest = build(stage.stage, DIST)
        print_next_steps(deployer.region, deployer.deploy(manifest, parse_params(args.param)))
    elif args.command == "migrate":
        print(json.dumps(deployer.migrate(), indent=1))
    else:
        print(json.dumps(deployer.outputs(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
