"""The service manager that runs the agent on this platform: launchd on macOS, systemd elsewhere."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.installers.launchd_service import Launchd
from agent.installers.systemd_service import SystemdUser


def manager_for(kind: str | None = None, user_home: Path | None = None) -> SystemdUser | Launchd:
    """The service manager of this platform (launchd on macOS, systemd elsewhere), or the one named."""
    user_home = user_home or Path.home()
    if (kind or ("launchd" if sys.platform == "darwin" else "systemd")) == "launchd":
        return Launchd(user_home)
    return SystemdUser(user_home)
