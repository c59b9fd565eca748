"""Tell the server which SSH targets this machine reaches (at `itachi ssh add` and agent start)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.ssh.targets import LocalTarget, load_targets
from chalicelib.contracts.api_transport import ApiError

log = logging.getLogger("itachi.agent")


def register_target(api: Any, target: LocalTarget, machine_id: str) -> dict[str, Any]:
    return api.post("/api/ssh/targets", target.wire(machine_id))  # type: ignore[no-any-return]


def register_all(api: Any, home: Path, env: Mapping[str, str], machine_id: str) -> int:
    """Register every configured target; return how many the server accepted (others are logged)."""
    accepted = 0
    for target in load_targets(home, env).values():
        try:
            register_target(api, target, machine_id)
            accepted += 1
        except ApiError as exc:
            log.warning("ssh target %s not registered: %s", target.name, exc.message)
    return accepted
