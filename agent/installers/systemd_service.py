"""The agent's systemd user unit: `~/.config/systemd/user/itachi-agent.service`.

Installing writes the unit, then `systemctl --user daemon-reload` and `enable --now`, and asks
`loginctl enable-linger` for a start at boot. Where systemctl is missing or cannot reach a user
manager, the unit is enabled by the same `default.target.wants` link `systemctl enable` makes.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
from pathlib import Path

from agent.installers.service_control import Outcome, ServiceStatus, agent_running, run_tool
from agent.installers.service_unit import UNIT_NAME, AgentService, render_systemd

LINGER_DIR = Path("/var/lib/systemd/linger")  # logind's: one file per lingering user


def _user() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


class SystemdUser:
    """`~/.config/systemd/user/itachi-agent.service`, run by the user's systemd."""

    name = "systemd"

    def __init__(self, user_home: Path) -> None:
        self.unit_dir = user_home / ".config" / "systemd" / "user"
        self.path = self.unit_dir / UNIT_NAME
        self._wants = self.unit_dir / "default.target.wants" / UNIT_NAME

    def render(self, service: AgentService) -> str:
        return render_systemd(service)

    def install(self, service: AgentService) -> Outcome:
        out = Outcome()
        self.unit_dir.mkdir(parents=True, exist_ok=True)
        self.path.write_text(self.render(service), encoding="utf-8")
        out.lines.append(f"Wrote {self.path}.")
        unreachable = self._systemctl("daemon-reload")
        failed = unreachable or self._systemctl("enable", "--now", UNIT_NAME)
        if unreachable:
            self._enable_by_link()
            out.lines.append(f"Enabled it for default.target ({self._wants}), but {unreachable}, so "
                             "nothing starts it now: it starts when this user's systemd does. "
                             f"Meanwhile: itachi agent --home {service.home}")
        elif failed:
            out.ok = False
            out.lines.append(f"The unit is in place but {failed}; see systemctl --user status {UNIT_NAME}")
        else:
            out.running = True
            out.lines.append(f"Started {UNIT_NAME} (systemctl --user status {UNIT_NAME}; "
                             f"log {service.log_path}).")
        out.lines.append(self._linger())
        return out

    def uninstall(self) -> Outcome:
        out = Outcome()
        if not self.path.exists():
            out.lines.append(f"No {self.path}: nothing to remove.")
            return out
        failed = self._systemctl("disable", "--now", UNIT_NAME)
        self._wants.unlink(missing_ok=True)
        self.path.unlink()
        out.lines.append(f"Removed {self.path}" + (f" ({failed}: stop a running agent yourself)." if failed
                                                   else "; the agent is stopped and disabled."))
        if not failed:
            self._systemctl("daemon-reload")
        return out

    def status(self, home: Path) -> ServiceStatus:
        installed = self.path.exists()
        enabled, running, detail = self._wants.exists(), None, "from the files"
        if installed and shutil.which("systemctl"):
            active = run_tool(["systemctl", "--user", "is-active", UNIT_NAME]).stdout.strip()
            state = run_tool(["systemctl", "--user", "is-enabled", UNIT_NAME]).stdout.strip()
            if active in {"active", "activating", "deactivating", "inactive", "failed", "reloading"}:
                running, detail = active in {"active", "reloading"}, f"systemctl: {active}, {state}"
                enabled = state in {"enabled", "enabled-runtime", "linked", "alias"}
        if installed and running is None:
            running = agent_running(home)
        linger = (LINGER_DIR / _user()).exists()
        return ServiceStatus(self.name, self.path, installed, installed and enabled, running,
                             _unit_home(self.path) if installed else None,
                             f"{detail}; {'starts at boot (lingering)' if linger else 'starts at login'}")

    def _systemctl(self, *args: str) -> str:
        """Run `systemctl --user ARGS`; '' when it worked, else why not."""
        if not shutil.which("systemctl"):
            return "systemctl is not available here"
        done = run_tool(["systemctl", "--user", *args])
        if done.returncode == 0:
            return ""
        reason = (done.stderr or done.stdout).strip().splitlines()
        return f"`systemctl --user {' '.join(args)}` failed ({reason[-1] if reason else done.returncode})"

    def _enable_by_link(self) -> None:
        self._wants.parent.mkdir(parents=True, exist_ok=True)
        self._wants.unlink(missing_ok=True)
        self._wants.symlink_to(Path("..") / UNIT_NAME)

    def _linger(self) -> str:
        user = _user()
        if (LINGER_DIR / user).exists():
            return "Lingering is on: the agent starts at boot, before anyone logs in."
        if not shutil.which("loginctl"):
            return ("loginctl is not available: the agent starts when you log in, not at boot "
                    f"(where systemd-logind runs: loginctl enable-linger {user}).")
        done = run_tool(["loginctl", "--no-ask-password", "enable-linger", user])
        if done.returncode == 0:
            return "Enabled lingering: the agent starts at boot, before anyone logs in."
        reason = (done.stderr or done.stdout).strip() or f"exit {done.returncode}"
        return (f"Lingering was not enabled ({reason}): the agent starts when you log in, not at boot. "
                f"An administrator can run: sudo loginctl enable-linger {user}")


def _unit_home(path: Path) -> Path | None:
    """ITACHI_HOME as the unit's `Environment=` line sets it."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("Environment="):
            name, _, value = shlex.split(line.removeprefix("Environment="))[0].partition("=")
            if name == "ITACHI_HOME":
                return Path(value.replace("%%", "%"))
    return None
