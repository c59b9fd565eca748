"""A subagent profile: its instructions, engine and model, tool permissions, budget and scope.

A profile becomes a run's engine options (`engine_options`), which the agent turns into the
engine's flags (`agent/engines/definitions.py`): Claude Code gets the system prompt appended to its own
(`--append-system-prompt`), the permission mode, the allowed tools and the model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from chalicelib.contracts.engine_switch import KNOWN_ENGINES
from chalicelib.kernel.errors import InvalidInput

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,47}$")
CATEGORY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")  # a memory category (project_rule, ...)
TOOL = re.compile(r"^[A-Za-z0-9_.*:()/ -]{1,120}$")
PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
MAX_PROMPT = 20_000
MAX_BUDGET_S = 24 * 3600


@dataclass(frozen=True)
class Profile:
    name: str
    system_prompt: str
    description: str = ""
    engine: str | None = "claude"
    model: str | None = None
    permission_mode: str = "acceptEdits"
    allowed_tools: tuple[str, ...] = ()
    time_budget_s: int = 1800
    cost_budget_usd: float | None = None
    memory_projects: tuple[str, ...] = ()
    memory_categories: tuple[str, ...] = ()
    default_machine: str | None = None
    builtin: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def engine_options(self) -> dict[str, Any]:
        """What the agent starts the engine with; `interactive` lets messages reach its next turn."""
        options: dict[str, Any] = {"profile": self.name, "system_prompt": self.system_prompt,
                                   "permission_mode": self.permission_mode, "interactive": True}
        if self.model:
            options["model"] = self.model
        if self.allowed_tools:
            options["allowed_tools"] = list(self.allowed_tools)
        if self.memory_projects or self.memory_categories:
            options["memory_scope"] = {"projects": list(self.memory_projects),
                                       "categories": list(self.memory_categories)}
        return options

    def to_json(self) -> dict[str, Any]:
        body = asdict(self)
        body.pop("extra")
        for key in ("allowed_tools", "memory_projects", "memory_categories"):
            body[key] = list(body[key])
        return body


def _text(body: Mapping[str, Any], key: str, *, limit: int, required: bool = False) -> str | None:
    value = body.get(key)
    if value is None or value == "":
        if required:
            raise InvalidInput(f"{key} is required", field=key)
        return None
    if not isinstance(value, str) or len(value) > limit:
        raise InvalidInput(f"{key} must be text of at most {limit} characters", field=key)
    return value.strip()


def _names(body: Mapping[str, Any], key: str, pattern: re.Pattern[str]) -> tuple[str, ...]:
    value = body.get(key) or []
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, Sequence) or len(value) > 50 or not all(
            isinstance(v, str) and pattern.match(v) for v in value):
        raise InvalidInput(f"{key} must be a list of at most 50 names", field=key)
    return tuple(value)


def _number(body: Mapping[str, Any], key: str, default: Any, low: float, high: float) -> Any:
    value = body.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise InvalidInput(f"{key} must be a number from {low} to {high}", field=key)
    return value


def profile_from_body(body: Mapping[str, Any]) -> Profile:
    """Validate a user's profile (API, CLI); every error is an InvalidInput naming its field."""
    name = _text(body, "name", limit=48, required=True) or ""
    if not NAME.match(name):
        raise InvalidInput("name must be lower-case letters, digits and dashes", field="name")
    engine = _text(body, "engine", limit=20) or "claude"
    if engine not in KNOWN_ENGINES:
        raise InvalidInput(f"engine must be one of {', '.join(KNOWN_ENGINES)}", field="engine")
    mode = _text(body, "permission_mode", limit=40) or "acceptEdits"
    if mode not in PERMISSION_MODES:
        raise InvalidInput(f"permission_mode must be one of {', '.join(PERMISSION_MODES)}",
                           field="permission_mode")
    model = _text(body, "model", limit=100)
    if model is not None and not TOOL.match(model):
        raise InvalidInput("model must be a plain model name", field="model")
    budget = _number(body, "time_budget_s", 1800, 1, MAX_BUDGET_S)
    return Profile(
        name=name, system_prompt=_text(body, "system_prompt", limit=MAX_PROMPT, required=True) or "",
        description=_text(body, "description", limit=500) or "", engine=engine, model=model,
        permission_mode=mode, allowed_tools=_names(body, "allowed_tools", TOOL),
        time_budget_s=int(budget), cost_budget_usd=_number(body, "cost_budget_usd", None, 0, 10_000),
        memory_projects=_names(body, "memory_projects", TOOL), memory_categories=_names(
            body, "memory_categories", CATEGORY), default_machine=_text(body, "default_machine", limit=100))
