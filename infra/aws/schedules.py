"""EventBridge rules from the schedule table (chalicelib/kernel/schedule_table.py): one rule per row."""

from __future__ import annotations

from chalicelib.kernel.schedule_table import SCHEDULES, ScheduleSpec
from infra.aws.cfn import Json, get_att, pascal
from infra.aws.functions import schedule_function


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
