"""A stage's settings, read from `.chalice/config.json`: names (queue prefix, secret names), never values."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFIG_PATH = REPO_ROOT / ".chalice" / "config.json"


class StageError(ValueError):
    """The stage is missing or incomplete in .chalice/config.json."""


@dataclass(frozen=True)
class StageConfig:
    stage: str
    app_name: str
    env: dict[str, str]
    parameters: dict[str, str] = field(default_factory=dict)  # CloudFormation parameter defaults
    termination_protection: bool = False  # delete-stack refused while on (the stage's choice)

    @property
    def queue_prefix(self) -> str:
        return self.env["ITACHI_QUEUE_PREFIX"]

    @property
    def stack_name(self) -> str:
        return f"{self.app_name}-{self.stage}"

    def secret_name(self, var: str) -> str:
        key = f"{var}_SECRET_ID"
        if not self.env.get(key):
            raise StageError(f"stage {self.stage!r} has no {key} in .chalice/config.json")
        return self.env[key]


def load_stage(stage: str, path: Path = CONFIG_PATH) -> StageConfig:
    config = json.loads(path.read_text())
    stages = config.get("stages", {})
    if stage not in stages:
        raise StageError(f"no stage {stage!r} in {path} (have: {', '.join(sorted(stages))})")
    section = stages[stage]
    env = {**config.get("environment_variables", {}), **section.get("environment_variables", {})}
    for required in ("ITACHI_STAGE", "ITACHI_QUEUE_PREFIX"):
        if not env.get(required):
            raise StageError(f"stage {stage!r} sets no {required} in {path}")
    params = {str(k): str(v) for k, v in section.get("itachi_parameters", {}).items()}
    return StageConfig(stage=stage, app_name=config["app_name"], env=env, parameters=params,
                       termination_protection=bool(section.get("itachi_termination_protection", False)))
