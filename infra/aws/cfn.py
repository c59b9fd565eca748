"""Small helpers for writing CloudFormation as Python dicts."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]

NO_VALUE: Json = {"Ref": "AWS::NoValue"}


def ref(name: str) -> Json:
    return {"Ref": name}


def get_att(resource: str, attribute: str) -> Json:
    return {"Fn::GetAtt": [resource, attribute]}


def sub(text: str) -> Json:
    return {"Fn::Sub": text}


def join(*parts: Any, sep: str = "") -> Json:
    return {"Fn::Join": [sep, list(parts)]}


def pascal(key: str) -> str:
    """"telegram-updates" -> "TelegramUpdates" (a CloudFormation logical id part)."""
    return "".join(part[:1].upper() + part[1:] for part in key.replace("_", "-").split("-") if part)


def sqs_arn(queue_name: str) -> Json:
    return sub(f"arn:${{AWS::Partition}}:sqs:${{AWS::Region}}:${{AWS::AccountId}}:{queue_name}")


def tags(stage: str, extra: dict[str, str] | None = None) -> list[Json]:
    pairs = {"itachi:stage": stage, **(extra or {})}
    return [{"Key": k, "Value": v} for k, v in pairs.items()]


def assume_role(service: str) -> Json:
    """A role trust policy for one AWS service principal."""
    return {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}]}
