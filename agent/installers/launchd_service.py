"""The agent's launchd agent: `~/Library/LaunchAgents/com.itachi.agent.plist`, loaded into the
user's GUI domain with `launchctl bootstrap` (and at every login)."""

from __future__ import annotations

import os
import plistlib
import shutil
from pathlib import Path

from agent.installers.service_control import Outcome, ServiceStatus, agent_running, run_tool
from agent.installers.service_unit import LAUNCHD_LABEL, AgentService, render_launchd


class Launchd:
    """`~/Library/LaunchAgents/com.itachi.agent.plist`, run by launchd in the user's GUI domain."""

    name = "launchd"

    def __init__(self, user_home: Path) -> None:
        self.path = user_home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
        self._domain = f"gui/{os.getuid()}"

    def render(self, service: AgentService) -> str:
        return render_launchd(service).decode("utf-8") + "\n"

    def install(self, service: AgentService) -> Outcome:
        out = Outcome()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(render_launchd(service))
        out.lines.append(f"Wrote {self.path}.")
        if not shutil.which("launchctl"):
            out.lines.append("launchctl is not available here, so nothing loads it now; launchd loads "
                             f"it at your next login. Meanwhile: itachi agent --home {service.home}")
            return out
        run_tool(["launchctl", "bootout", f"{self._domain}/{LAUNCHD_LABEL}"])  # a previous version
        done = run_tool(["launchctl", "bootstrap", self._domain, str(self.path)])
        if done.returncode:
            out.ok = False
            out.lines.append(f"launchctl bootstrap failed: {(done.stderr or done.stdout).strip()}")
        else:
            out.running = True
            out.lines.append(f"Loaded {LAUNCHD_LABEL}: it runs now and at every login "
                             f"(log {service.log_path}).")
        return out

    def uninstall(self) -> Outcome:
        out = Outcome()
        if not self.path.exists():
            out.lines.append(f"No {self.path}: nothing to remove.")
            return out
        if shutil.which("launchctl"):
            run_tool(["launchctl", "bootout", f"{self._domain}/{LAUNCHD_LABEL}"])
        self.path.unlink()
        out.lines.append(f"Removed {self.path}; the agent is stopped and unloaded.")
        return out

    def status(self, home: Path) -> ServiceStatus:
        installed = self.path.exists()
        running, detail = None, "from the files"
        if installed and shutil.which("launchctl"):
            shown = run_tool(["launchctl", "print", f"{self._domain}/{LAUNCHD_LABEL}"])
            running = shown.returncode == 0 and "state = running" in shown.stdout
            detail = "launchctl: " + ("loaded" if shown.returncode == 0 else "not loaded")
        if installed and running is None:
            running = agent_running(home)
        plist_home = None
        if installed:
            with self.path.open("rb") as fh:
                plist_home = plistlib.load(fh).get("EnvironmentVariables", {}).get("ITACHI_HOME")
        # launchd loads every agent of ~/Library/LaunchAgents at login: installed is enabled.
        return ServiceStatus(self.name, self.path, installed, installed, running,
                             Path(plist_home) if plist_home else None, f"{detail}; starts at login")
