"""The REST API Chalice generated, made production-ready: throttling, 404 for unknown paths, access
logs in a log group with retention, and X-Ray tracing when `XRayTracing=true`.

API Gateway writes access logs through one account-wide role (`AWS::ApiGateway::Account`); the
stack sets it and keeps the role on delete (`Retain`), so removing a stage never breaks another
API's logging in the same account and region.
"""

from __future__ import annotations

import json

from infra.aws.cfn import Json, assume_role, get_att, ref, sub
from infra.aws.iam import TRACING

NOT_FOUND_BODY = '{"error": "not_found", "message": "no route for $context.path"}'
# One JSON line per request: who, what, how it went and how long it took; never headers or bodies.
ACCESS_LOG_FORMAT = json.dumps({
    "requestId": "$context.requestId", "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime", "method": "$context.httpMethod",
    "resource": "$context.resourcePath", "status": "$context.status",
    "responseLength": "$context.responseLength", "latencyMs": "$context.responseLatency",
    "integrationLatencyMs": "$context.integrationLatency", "xrayTraceId": "$context.xrayTraceId",
    "error": "$context.error.responseType"}, separators=(",", ":"))
PUSH_TO_LOGS_POLICY = ("arn:${AWS::Partition}:iam::aws:policy/service-role/"
                       "AmazonAPIGatewayPushToCloudWatchLogs")


def adapt(resources: Json, stage: str) -> None:
    rest = resources["RestAPI"]
    props = rest["Properties"]
    props["Name"] = sub("${AWS::StackName}-api")
    props["MethodSettings"] = [{"ResourcePath": "/*", "HttpMethod": "*",
                                "ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50}]
    # API Gateway answers an unknown path with 403 "Missing Authentication Token"; Itachi says 404,
    # as the local server does.
    props["DefinitionBody"]["x-amazon-apigateway-gateway-responses"] = {
        "MISSING_AUTHENTICATION_TOKEN": {"statusCode": "404",
                                         "responseTemplates": {"application/json": NOT_FOUND_BODY}}}
    props["AccessLogSetting"] = {"DestinationArn": get_att("ApiAccessLogs", "Arn"),
                                 "Format": ACCESS_LOG_FORMAT}
    props["TracingEnabled"] = {"Fn::If": [TRACING, True, False]}
    rest["DependsOn"] = sorted({*rest.get("DependsOn", []), "ApiGatewayAccount"})
    resources.update({
        "ApiAccessLogs": {"Type": "AWS::Logs::LogGroup", "DeletionPolicy": "Delete",
                          "UpdateReplacePolicy": "Delete", "Properties": {
                              "LogGroupName": sub("/aws/apigateway/${AWS::StackName}-api-access"),
                              "RetentionInDays": ref("LogRetentionDays")}},
        "ApiGatewayLogsRole": {"Type": "AWS::IAM::Role", "DeletionPolicy": "Retain",
                               "UpdateReplacePolicy": "Retain", "Properties": {
                                   "AssumeRolePolicyDocument": assume_role("apigateway.amazonaws.com"),
                                   "ManagedPolicyArns": [sub(PUSH_TO_LOGS_POLICY)]}},
        "ApiGatewayAccount": {"Type": "AWS::ApiGateway::Account", "Properties": {
            "CloudWatchRoleArn": get_att("ApiGatewayLogsRole", "Arn")}},
    })


def api_name_dimensions(stage: str) -> list[Json]:
    """The CloudWatch dimensions of this API's metrics."""
    return [{"Name": "ApiName", "Value": sub("${AWS::StackName}-api")}, {"Name": "Stage", "Value": stage}]
