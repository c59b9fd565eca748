"""RDS Postgres 16 (pgvector 0.8 ships with 16.5 and later; migration 0001 creates the extension),
encrypted, with backups, TLS only, and RDS Proxy in front of it for the Lambdas in private mode.

Who reaches Postgres: the proxy, or without a proxy (`DbProxyEnabled=false`, the cheap dev stage)
the Lambdas' security group, and the migrations function's own group; nothing from the internet.
The instance lives in the private subnets and has no public address in any stage: no parameter
can give it one (`PubliclyAccessible` is a constant, which the policy scanner checks).
The parameter group pins TLS (`rds.force_ssl`, TLS 1.2 at least) and `max_connections`, which
the API's reserved concurrency is sized to (infra/aws/capacity.py). Clients verify the
certificate (`verify-full`) against the CA bundle shipped in the Lambda zip (infra/aws/ca_bundle.py).
"""

from __future__ import annotations

from infra.aws.ca_bundle import LAMBDA_BUNDLE_PATH
from infra.aws.capacity import MAX_CONNECTIONS_CHOICES
from infra.aws.cfn import Json, assume_role, get_att, ref, sub, tags
from infra.aws.network import PRIVATE_SUBNETS, VPC_CIDR
from infra.aws.secrets import APP_DATABASE_SECRET, DATABASE_SECRET
from infra.local.postgres_watch import PRIVATE_LOG_SETTINGS

SECRET = DATABASE_SECRET.logical_id
APP_SECRET = APP_DATABASE_SECRET.logical_id
PORT = 5432
USE_PROXY = "UseDbProxy"  # condition: RDS Proxy in front of the instance
TLS_SETTINGS = {"rds.force_ssl": "1", "ssl_min_protocol_version": "TLSv1.2"}


def parameters() -> Json:
    return {
        "DbProxyEnabled": {"Type": "String", "Default": "true", "AllowedValues": ["true", "false"],
                    "Description": "RDS Proxy in front of the database (false: the Lambdas "
                                   "connect to the instance, within DbMaxConnections)"},
        "DbMaxConnections": {"Type": "String", "Default": "200", "AllowedValues": MAX_CONNECTIONS_CHOICES,
                             "Description": "Postgres max_connections (the API's reserved concurrency "
                                            "follows it): 100 for db.t4g.micro, 200 for small"},
    }


def conditions() -> Json:
    return {
        USE_PROXY: {"Fn::Equals": [ref("DbProxyEnabled"), "true"]},
    }


def tls_environment() -> Json:
    """How clients connect: verify the server's certificate against the shipped CA bundle."""
    return {"DATABASE_SSLMODE": "verify-full", "DATABASE_SSLROOTCERT": LAMBDA_BUNDLE_PATH}


def app_database_host() -> Json:
    """Where the app's Lambdas connect: the proxy when there is one, the instance otherwise."""
    return {"Fn::If": [USE_PROXY, get_att("DbProxy", "Endpoint"), get_att("Database", "Endpoint.Address")]}


def _postgres_from(group: str | Json, description: str | None = None) -> Json:
    return {"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT,
            "SourceSecurityGroupId": ref(group) if isinstance(group, str) else group,
            "Description": description or f"Postgres from {group}"}


def _ingress() -> list[Json]:
    # Every rule whole (with its description); a condition chooses only the app's source group.
    app = {"Fn::If": [USE_PROXY, ref("ProxySecurityGroup"), ref("LambdaSecurityGroup")]}
    return [_postgres_from(app, "Postgres from RDS Proxy, or from the Lambdas when there is none"),
            _postgres_from("MigrationsSecurityGroup")]


def instance_host() -> Json:
    return get_att("Database", "Endpoint.Address")


def resources(stage: str) -> Json:
    resolve = "{{resolve:secretsmanager:${%s}:SecretString:%s}}"
    return {
        "DbSubnetGroup": {"Type": "AWS::RDS::DBSubnetGroup", "Properties": {
            "DBSubnetGroupDescription": "Itachi database subnets",
            "SubnetIds": PRIVATE_SUBNETS, "Tags": tags(stage)}},
        "ProxySecurityGroup": {"Type": "AWS::EC2::SecurityGroup", "Condition": USE_PROXY, "Properties": {
            "GroupDescription": "Itachi RDS Proxy: Postgres from the Lambdas", "VpcId": ref("Vpc"),
            "SecurityGroupIngress": [_postgres_from("LambdaSecurityGroup")],
            "SecurityGroupEgress": [{"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT,
                                     "CidrIp": VPC_CIDR, "Description": "Postgres to the instance"},
                                    {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443,
                                     "CidrIp": "0.0.0.0/0",
                                     "Description": "HTTPS to Secrets Manager (the logins' secrets)"}],
            "Tags": tags(stage)}},
        "DbSecurityGroup": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
            "GroupDescription": "Itachi database: Postgres from the proxy and the migrations function",
            "VpcId": ref("Vpc"), "SecurityGroupIngress": _ingress(),
            "SecurityGroupEgress": [{"IpProtocol": "-1", "CidrIp": "127.0.0.1/32",
                                     "Description": "no egress"}],
            "Tags": tags(stage)}},
        # Errors logged tersely, never a statement or its parameters (requests carry secrets); TLS
        # only; a known connection limit.
        "DbParameters": {"Type": "AWS::RDS::DBParameterGroup", "Properties": {
            "Family": sub("postgres${DbEngineVersion}"),
            "Description": "Itachi: TLS only, a fixed max_connections, no statement values in the log",
            "Parameters": {**PRIVATE_LOG_SETTINGS, **TLS_SETTINGS,
                           "max_connections": ref("DbMaxConnections")},
            "Tags": tags(stage)}},
        "Database": {
            "Type": "AWS::RDS::DBInstance",
            "DeletionPolicy": "Snapshot", "UpdateReplacePolicy": "Snapshot",
            "Properties": {
                "Engine": "postgres", "EngineVersion": ref("DbEngineVersion"),
                "DBInstanceClass": ref("DbInstanceClass"),
                "AllocatedStorage": ref("DbStorageGb"), "MaxAllocatedStorage": 200, "StorageType": "gp3",
                "StorageEncrypted": True, "BackupRetentionPeriod": ref("DbBackupDays"),
                "CopyTagsToSnapshot": True, "AutoMinorVersionUpgrade": True,
                "MultiAZ": ref("DbMultiAz"),
                "DeletionProtection": ref("DbDeletionProtection"),
                "PubliclyAccessible": False,
                "DBName": "itachi",
                "MasterUsername": sub(resolve % (SECRET, "username")),
                "MasterUserPassword": sub(resolve % (SECRET, "password")),
                "DBSubnetGroupName": ref("DbSubnetGroup"),
                "DBParameterGroupName": ref("DbParameters"),
                "VPCSecurityGroups": [ref("DbSecurityGroup")],
                "Tags": tags(stage)}},
        "DatabaseSecretAttachment": {"Type": "AWS::SecretsManager::SecretTargetAttachment", "Properties": {
            "SecretId": ref(SECRET), "TargetId": ref("Database"), "TargetType": "AWS::RDS::DBInstance"}},
        "DbProxyRole": {"Type": "AWS::IAM::Role", "Condition": USE_PROXY, "Properties": {
            "AssumeRolePolicyDocument": assume_role("rds.amazonaws.com"),
            "Policies": [{"PolicyName": "read-database-secret", "PolicyDocument": {
                "Version": "2012-10-17", "Statement": [{
                    "Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
                    "Resource": [ref(SECRET), ref(APP_SECRET)]}]}}],
            "Tags": tags(stage)}},
        "DbProxy": {"Type": "AWS::RDS::DBProxy", "Condition": USE_PROXY, "Properties": {
            "DBProxyName": sub("${AWS::StackName}-proxy"), "EngineFamily": "POSTGRESQL",
            "Auth": [{"AuthScheme": "SECRETS", "SecretArn": ref(s), "IAMAuth": "DISABLED",
                      "ClientPasswordAuthType": "POSTGRES_SCRAM_SHA_256"} for s in (SECRET, APP_SECRET)],
            "RoleArn": get_att("DbProxyRole", "Arn"), "RequireTLS": True, "IdleClientTimeout": 1800,
            "VpcSubnetIds": PRIVATE_SUBNETS, "VpcSecurityGroupIds": [ref("ProxySecurityGroup")],
            "Tags": [{"Key": "itachi:stage", "Value": stage}]}},
        "DbProxyTargets": {"Type": "AWS::RDS::DBProxyTargetGroup", "Condition": USE_PROXY, "Properties": {
            "DBProxyName": ref("DbProxy"), "TargetGroupName": "default",
            "DBInstanceIdentifiers": [ref("Database")],
            "ConnectionPoolConfigurationInfo": {"MaxConnectionsPercent": 90}}},
    }
