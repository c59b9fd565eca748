"""The health monitor's memory in a small JSON file (never the database, which may be what is down)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from chalicelib.ops.domain.health_rules import CheckState


class HealthStateFile:
    def __init__(self, path: Path) -> None:
        self._path = path

    def load(self) -> tuple[dict[str, CheckState], float | None]:
        try:
            raw = json.loads(self._path.read_text())
        except (OSError, ValueError):
            return {}, None
        checks = raw.get("checks") if isinstance(raw, dict) else None
        states = {str(k): CheckState.from_json(v) for k, v in (checks or {}).items() if isinstance(v, dict)}
        ran_at = raw.get("ran_at")
        return states, float(ran_at) if isinstance(ran_at, int | float) else None

    def save(self, states: dict[str, CheckState], ran_at: float) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"ran_at": ran_at, "checks": {k: v.to_json() for k, v in states.items()}}))
        os.replace(tmp, self._path)
