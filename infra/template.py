"""Render the production CloudFormation template: the Chalice app's SAM output plus the whole stack.

`render(sam, stage, code_uri=...)` takes what `chalice package` wrote (API Gateway + the API
Lambda) and adds the VPC, RDS + RDS Proxy, secrets, the queues and schedules of the two tables
with their Lambdas, the migrations deploy step, IAM, log groups and alarms. Everything that can
be generated from the queue and schedule tables (chalicelib/kernel/) is: a new consumer or
schedule needs a table row only.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

from infra.aws import (
    agents,
    alarms,
    api_gateway,
    capacity,
    database,
    functions,
    network,
    queues,
    schedules,
    secrets,
)
from infra.aws.access import MACHINES, access_for
from infra.aws.cfn import Json, get_att, ref, sub
from infra.aws.iam import TRACING, queue_arn, queue_statements, role
from infra.aws.network import lambda_vpc_config
from infra.aws.stage import REPO_ROOT, StageConfig

API_ID = "APIHandler"
ALARM_EMAIL_PATTERN = r"^[^@\s]+@[^@\s]+\.[^@\s]+$"
MIGRATIONS_DIR = REPO_ROOT / "chalicelib" / "migrations"
LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192,
                      2557, 2922, 3288, 3653]


def parameters() -> Json:
    return {
        "DbInstanceClass": {"Type": "String", "Default": "db.t4g.small", "AllowedPattern": r"^db\..+",
                            "Description": "RDS instance class (db.t4g.micro for a small dev stack)"},
        "DbEngineVersion": {"Type": "String", "Default": "16",
                            "Description": "Postgres 16; RDS picks the current minor (16.5 and later "
                                           "ship pgvector 0.8, which the deploy step checks)"},
        "DbStorageGb": {"Type": "Number", "Default": 20, "MinValue": 20, "MaxValue": 1000},
        "DbBackupDays": {"Type": "Number", "Default": 7, "MinValue": 1, "MaxValue": 35},
        "DbMultiAz": {"Type": "String", "Default": "false", "AllowedValues": ["true", "false"]},
        "DbDeletionProtection": {"Type": "String", "Default": "true", "AllowedValues": ["true", "false"]},
        **database.parameters(),
        "FunctionMemoryMb": {"Type": "Number", "Default": 1024, "MinValue": 256, "MaxValue": 10240,
                             "Description": "Lambda memory; CPU grows with it (1769 MB = one vCPU)"},
        "ApiMemoryMb": {"Type": "Number", "Default": 1769, "MinValue": 256, "MaxValue": 10240,
                        "Description": "API Lambda memory: one full vCPU keeps its cold start short"},
        "LogRetentionDays": {"Type": "Number", "Default": 30, "AllowedValues": LOG_RETENTION_DAYS},
        # No default: every alarm goes to this address, and a stack that mails nobody is refused.
        "AlarmEmail": {"Type": "String", "AllowedPattern": ALARM_EMAIL_PATTERN,
                       "ConstraintDescription": "an e-mail address: alarms are mailed there",
                       "Description": "Where alarms are mailed (required)"},
        "TelegramAllowedUsers": {"Type": "String", "Default": "",
                                 "Description": "Telegram user ids allowed to command the bot "
                                                "(comma-separated)"},
        "TelegramChatId": {"Type": "String", "Default": "",
                           "Description": "The forum supergroup for task topics (optional)"},
        "DeployId": {"Type": "String", "Default": "initial",
                     "Description": "Changes on every deploy so that migrations run each time"},
        "XRayTracing": {"Type": "String", "Default": "false", "AllowedValues": ["true", "false"],
                        "Description": "X-Ray active tracing for the API and every function"},
    }


def migrations_digest(directory: Path = MIGRATIONS_DIR) -> str:
    h = hashlib.sha256()
    for path in sorted(directory.glob("*.sql")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def _adapt_api(resources: Json, stage: StageConfig, code_uri: str) -> None:
    """Run the Chalice API Lambda like the others: own role, log group, VPC, secrets, after migrations."""
    fn = functions.FunctionSpec(f"{API_ID}Function", "api", None, functions.API_TIMEOUT_S,
                                "Itachi REST API and Telegram webhook")
    access = access_for(fn.access_key)
    api = resources[API_ID]
    props = api["Properties"]
    props.update({
        "FunctionName": sub("${AWS::StackName}-api"), "Description": fn.description,
        "CodeUri": code_uri, "MemorySize": ref("ApiMemoryMb"), "Timeout": fn.timeout_s,
        "Role": get_att(f"{API_ID}Role", "Arn"), "VpcConfig": lambda_vpc_config(),
        "LoggingConfig": {"LogGroup": ref(f"{API_ID}Logs"), "LogFormat": "Text"},
        "Environment": {"Variables": {**functions.app_environment(stage.env, access),
                                      "ITACHI_MACHINE_ROLE_ARN": get_att(agents.MACHINE_ROLE_ID, "Arn")}},
        "Tracing": functions.tracing_mode(),
        # Sized to the database's connections (infra/aws/capacity.py).
        "ReservedConcurrentExecutions": capacity.find("ApiReservedConcurrency"),
    })
    api["DependsOn"] = ["SchemaMigrations"]
    resources[f"{API_ID}Logs"] = functions.log_group("api")
    resources[f"{API_ID}Role"] = role(API_ID, queue_statements(stage.queue_prefix, access),
                                      secrets.secrets_named(access.secrets))
    resources.update(agents.resources(f"{API_ID}Role", queue_arn(stage.queue_prefix, MACHINES)))
    api_gateway.adapt(resources, stage.stage)


def _outputs(stage: StageConfig) -> Json:
    out: Json = {
        "ApiUrl": {"Description": "Base URL of the Itachi API",
                   "Value": sub(f"https://${{RestAPI}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}/"
                                f"{stage.stage}")},
        "RestAPIId": {"Value": ref("RestAPI")},
        "QueuePrefix": {"Value": stage.queue_prefix},
        "AlarmTopicArn": {"Value": ref("AlarmTopic")},
        "DatabaseEndpoint": {"Value": database.instance_host()},
        "DatabaseConnectHost": {"Value": database.app_database_host()},
        "MigrationsApplied": {"Value": get_att("SchemaMigrations", "Applied")},
        "PgvectorVersion": {"Value": get_att("SchemaMigrations", "PgvectorVersion")},
        "MigrationsFunctionName": {"Value": ref(functions.MIGRATIONS.logical_id)},
    }
    for spec in secrets.SECRETS:
        out[f"{spec.logical_id}Arn"] = {"Value": ref(spec.logical_id)}
    return out


def render(sam: Json, stage: StageConfig, *, code_uri: str) -> Json:
    """Return the complete template (a new dict; `sam` is left unchanged)."""
    template: Json = copy.deepcopy(sam)
    resources: Json = template["Resources"]
    if API_ID not in resources or "RestAPI" not in resources:
        raise ValueError("the Chalice SAM template has no APIHandler/RestAPI")
    template["Description"] = f"Itachi {stage.stage}: API, queues, schedules, database and alarms"
    template["Parameters"] = parameters()
    template["Conditions"] = {
        TRACING: {"Fn::Equals": [ref("XRayTracing"), "true"]},
        **database.conditions(),
    }
    template["Mappings"] = capacity.mapping(int(stage.env.get("ITACHI_DB_POOL_MAX", "2")))
    _adapt_api(resources, stage, code_uri)
    prefix = stage.queue_prefix
    resources.update(network.resources(stage.stage))
    resources.update(secrets.resources(stage))
    resources.update(database.resources(stage.stage))
    resources.update(functions.resources(prefix, stage.env, code_uri))
    resources.update(queues.resources(prefix, stage.stage))
    resources.update(schedules.resources())
    resources["SchemaMigrations"] = {"Type": "Custom::SchemaMigrations", "Properties": {
        "ServiceToken": get_att(functions.MIGRATIONS.logical_id, "Arn"), "ServiceTimeout": 900,
        "DeployId": ref("DeployId"), "MigrationsDigest": migrations_digest()}}
    resources.update(alarms.resources(stage.stage))
    template["Outputs"] = _outputs(stage)
    return template


def function_ids(template: Json) -> list[str]:
    return [k for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function"]


def dump(template: Json, path: Path) -> None:
    path.write_text(json.dumps(template, indent=1, sort_keys=False) + "\n")


