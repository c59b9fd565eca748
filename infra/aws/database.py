"""RDS Postgres 16 (pgvector 0.8 ships with 16.5 and later; migration 0001 creates the extension),
encrypted, with backups, and RDS Proxy in front of it for the Lambdas in private mode."""

from __future__ import annotations

from infra.aws.cfn import PRIVATE, Json, assume_role, get_att, if_private, ref, sub, tags
from infra.aws.network import PRIVATE_SUBNETS, PUBLIC_SUBNETS
from infra.aws.secrets import DATABASE_SECRET
from infra.local.postgres_watch import PRIVATE_LOG_SETTINGS

SECRET = DATABASE_SECRET.logical_id
PORT = 5432


def app_database_host() -> Json:
    """Where the app's Lambdas connect: the proxy in private mode, the instance otherwise."""
    return if_private(get_att("DbProxy", "Endpoint"), get_att("Database", "Endpoint.Address"))


def instance_host() -> Json:
    return get_att("Database", "Endpoint.Address")


def resources(stage: str) -> Json:
    resolve = "{{resolve:secretsmanager:${%s}:SecretString:%s}}"
    return {
        "DbSubnetGroup": {"Type": "AWS::RDS::DBSubnetGroup", "Properties": {
            "DBSubnetGroupDescription": "Itachi database subnets",
            "SubnetIds": if_private(PRIVATE_SUBNETS, PUBLIC_SUBNETS), "Tags": tags(stage)}},
        "ProxySecurityGroup": {"Type": "AWS::EC2::SecurityGroup", "Condition": PRIVATE, "Properties": {
            "GroupDescription": "Itachi RDS Proxy: Postgres from the Lambdas", "VpcId": ref("Vpc"),
            "SecurityGroupIngress": [{"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT,
                                      "SourceSecurityGroupId": ref("LambdaSecurityGroup")}],
            "Tags": tags(stage)}},
        "DbSecurityGroup": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
            "GroupDescription": "Itachi database: Postgres from the proxy and the migrations function",
            "VpcId": ref("Vpc"),
            "SecurityGroupIngress": if_private(
                [{"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT,
                  "SourceSecurityGroupId": ref("ProxySecurityGroup")},
                 {"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT,
                  "SourceSecurityGroupId": ref("LambdaSecurityGroup")}],
                # Public-db mode: Lambdas outside a VPC have no fixed address; TLS and the password guard it.
                [{"IpProtocol": "tcp", "FromPort": PORT, "ToPort": PORT, "CidrIp": ref("DbAllowedCidr")}]),
            "Tags": tags(stage)}},
        # Errors logged tersely, never a statement or its parameters (requests carry secrets).
        "DbParameters": {"Type": "AWS::RDS::DBParameterGroup", "Properties": {
            "Family": sub("postgres${DbEngineVersion}"),
            "Description": "Itachi: keep statement values out of the Postgres log",
            "Parameters": dict(PRIVATE_LOG_SETTINGS), "Tags": tags(stage)}},
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
                "PubliclyAccessible": if_private(False, True),
                "DBName": "itachi",
                "MasterUsername": sub(resolve % (SECRET, "username")),
                "MasterUserPassword": sub(resolve % (SECRET, "password")),
                "DBSubnetGroupName": ref("DbSubnetGroup"),
                "DBParameterGroupName": ref("DbParameters"),
                "VPCSecurityGroups": [ref("DbSecurityGroup")],
                "Tags": tags(stage)}},
        "DatabaseSecretAttachment": {"Type": "AWS::SecretsManager::SecretTargetAttachment", "Properties": {
            "SecretId": ref(SECRET), "TargetId": ref("Database"), "TargetType": "AWS::RDS::DBInstance"}},
        "DbProxyRole": {"Type": "AWS::IAM::Role", "Condition": PRIVATE, "Properties": {
            "AssumeRolePolicyDocument": assume_role("rds.amazonaws.com"),
            "Policies": [{"PolicyName": "read-database-secret", "PolicyDocument": {
                "Version": "2012-10-17", "Statement": [{
                    "Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
                    "Resource": ref(SECRET)}]}}],
            "Tags": tags(stage)}},
        "DbProxy": {"Type": "AWS::RDS::DBProxy", "Condition": PRIVATE, "Properties": {
            "DBProxyName": sub("${AWS::StackName}-proxy"), "EngineFamily": "POSTGRESQL",
            "Auth": [{"AuthScheme": "SECRETS", "SecretArn": ref(SECRET), "IAMAuth": "DISABLED",
                      "ClientPasswordAuthType": "POSTGRES_SCRAM_SHA_256"}],
            "RoleArn": get_att("DbProxyRole", "Arn"), "RequireTLS": True, "IdleClientTimeout": 1800,
            "VpcSubnetIds": PRIVATE_SUBNETS, "VpcSecurityGroupIds": [ref("ProxySecurityGroup")],
            "Tags": [{"Key": "itachi:stage", "Value": stage}]}},
        "DbProxyTargets": {"Type": "AWS::RDS::DBProxyTargetGroup", "Condition": PRIVATE, "Properties": {
            "DBProxyName": ref("DbProxy"), "TargetGroupName": "default",
            "DBInstanceIdentifiers": [ref("Database")],
            "ConnectionPoolConfigurationInfo": {"MaxConnectionsPercent": 90}}},
    }
