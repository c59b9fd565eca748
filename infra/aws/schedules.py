"""EventBridge rules from infra/schedules.py: exactly one rule per schedule, targeting its function."""

from __future__ import annotations

from infra.aws.cfn import Json, get_att, pascal
from infra.aws.functions import schedule_function
from infra.schedules import SCHEDULES, ScheduleSpec


def rule_id(spec: ScheduleSpec) -> str:
    return f"{pascal(spec.name)}ScheduleRule"


def resources() -> Json:
    res: Json = {}
    for spec in SCHEDULES:
        fn = schedule_function(spec)
        res[rule_id(spec)] = {"Type": "AWS::Events::Rule", "Properties": {
            "Description": spec.description[:512], "ScheduleExpression": spec.rate_expression,
            "State": "ENABLED",
            "Targets": [{"Arn": get_att(fn.logical_id, "Arn"), "Id": spec.name[:64]}]}}
        res[f"{fn.base}Permission"] = {"Type": "AWS::Lambda::Permission", "Properties": {
            "Action": "lambda:InvokeFunction", "FunctionName": get_att(fn.logical_id, "Arn"),
            "Principal": "events.amazonaws.com", "SourceArn": get_att(rule_id(spec), "Arn")}}
    return res
