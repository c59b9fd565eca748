"""Evaluate a CloudFormation template's parameters, conditions, rules and intrinsic choices the way
CloudFormation would for given parameter values (what a stage deploys), without AWS."""

from __future__ import annotations

from typing import Any

NO_VALUE = {"Ref": "AWS::NoValue"}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def ref_names(value: Any) -> list[str]:
    return [v["Ref"] for v in as_list(value) if isinstance(v, dict) and "Ref" in v]


class Evaluator:
    def __init__(self, template: dict[str, Any], given: dict[str, str]) -> None:
        self.template = template
        declared = template.get("Parameters", {})
        unknown = set(given) - set(declared)
        if unknown:
            raise KeyError(f"the template declares no {sorted(unknown)}")
        self.values = {k: str(v.get("Default", "")) for k, v in declared.items()} | given
        self._conditions: dict[str, bool] = {}

    def parameter(self, name: str) -> str:
        return self.values[name]

    def condition(self, name: str) -> bool:
        if name not in self._conditions:
            self._conditions[name] = bool(self._test(self.template["Conditions"][name]))
        return self._conditions[name]

    def exists(self, resource: dict[str, Any]) -> bool:
        return "Condition" not in resource or self.condition(resource["Condition"])

    def rules_hold(self) -> bool:
        for rule in self.template.get("Rules", {}).values():
            if "RuleCondition" in rule and not self._test(rule["RuleCondition"]):
                continue
            if not all(self._test(a["Assert"]) for a in rule["Assertions"]):
                return False
        return True

    def _test(self, node: Any) -> Any:
        if isinstance(node, dict) and len(node) == 1:
            (key, arg), = node.items()
            if key == "Fn::Equals":
                return self.resolve(arg[0]) == self.resolve(arg[1])
            if key == "Fn::Not":
                return not self._test(arg[0])
            if key == "Fn::And":
                return all(self._test(a) for a in arg)
            if key == "Fn::Or":
                return any(self._test(a) for a in arg)
            if key == "Condition":
                return self.condition(arg)
        return self.resolve(node)

    def resolve(self, node: Any) -> Any:
        """`node` with Fn::If chosen, AWS::NoValue dropped and parameters and mappings filled in."""
        if isinstance(node, list):
            items = [self.resolve(v) for v in node]
            return [v for v in items if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if node == NO_VALUE:
            return NO_VALUE
        if set(node) == {"Fn::If"}:
            name, yes, no = node["Fn::If"]
            return self.resolve(yes if self.condition(name) else no)
        if set(node) == {"Ref"} and node["Ref"] in self.values:
            return self.values[node["Ref"]]
        if set(node) == {"Fn::FindInMap"}:
            table, first, second = (self.resolve(v) for v in node["Fn::FindInMap"])
            return self.template["Mappings"][table][first][second]
        out = {k: self.resolve(v) for k, v in node.items()}
        return {k: v for k, v in out.items() if v is not NO_VALUE}
