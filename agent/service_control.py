"""Install, remove and inspect the agent's service: systemd (`systemctl --user`) or launchd.

Each manager writes its file itself and then asks the service manager to load, enable and
start it. Where the manager's tool is missing or does not answer (no user session bus, a
container), the files are still written (and, for systemd, enabled by the same symlink
`systemctl enable` makes), and the outcome says that nothing runs the unit now.
"""

from __future__ import annotations

import fcntl
import os
import plistlib
import pwd
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.service_unit import LAUNCHD_LABEL, UNIT_NAME, AgentService, render_launchd, render_systemd

Which = Callable[[str], "str | None"]
Run = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


def run_tool(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=60, check=False)


@dataclass
class Outcome:
    """What an install or uninstall did, line by line; `running`: the manager runs the agent now."""

    ok: bool = True
    running: bool = False
    lines: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ServiceStatus:
    manager: str
    path: Path
    installed: bool
    enabled: bool
    running: bool | None  # None: nobody could say
    home: Path | None  # the state directory the installed service runs with
    detail: str = ""


def agent_running(home: Path) -> bool:
    """True when an agent holds one of the state directory's agent locks (`run/agent-<id>.lock`)."""
    for path in (home / "run").glob("agent-*.lock"):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
    return False


def up_supervisor(home: Path) -> int | None:
    """The pid of the `itachi up` that runs and restarts this state directory's agent, if one does."""
    from chalicelib.contracts.local_home import read_json
    from infra.local.postgres_watch import process_alive

    state = read_json(home / "run" / "state.json")
    pid = state.get("pid")
    return pid if isinstance(pid, int) and state.get("agent_pid") and process_alive(pid) else None


def _user() -> str:
    return pwd.getpwuid(os.getuid()).pw_name


class SystemdUser:
    """`~/.config/systemd/user/itachi-agent.service`, run by the user's systemd."""

    name = "systemd"

    def __init__(self, user_home: Path, *, which: Which = shutil.which, run: Run = run_tool,
                 linger_dir: Path = Path("/var/lib/systemd/linger")) -> None:
        self.unit_dir = user_home / ".config" / "systemd" / "user"
        self.path = self.unit_dir / UNIT_NAME
        self._wants = self.unit_dir / "default.target.wants" / UNIT_NAME
        self._which, self._run, self._linger_dir = which, run, linger_dir

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
        if installed and self._which("systemctl"):
            active = self._run(["systemctl", "--user", "is-active", UNIT_NAME]).stdout.strip()
            state = self._run(["systemctl", "--user", "is-enabled", UNIT_NAME]).stdout.strip()
            if active in {"active", "activating", "deactivating", "inactive", "failed", "reloading"}:
                running, detail = active in {"active", "reloading"}, f"systemctl: {active}, {state}"
                enabled = state in {"enabled", "enabled-runtime", "linked", "alias"}
        if installed and running is None:
            running = agent_running(home)
        linger = (self._linger_dir / _user()).exists()
        return ServiceStatus(self.name, self.path, installed, installed and enabled, running,
                             _unit_home(self.path) if installed else None,
                             f"{detail}; {'starts at boot (lingering)' if linger else 'starts at login'}")

    def _systemctl(self, *args: str) -> str:
        """Run `systemctl --user ARGS`; '' when it worked, else why not."""
        if not self._which("systemctl"):
            return "systemctl is not available here"
        done = self._run(["systemctl", "--user", *args])
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
        if (self._linger_dir / user).exists():
            return "Lingering is on: the agent starts at boot, before anyone logs in."
        if not self._which("loginctl"):
            return ("loginctl is not available: the agent starts when you log in, not at boot "
                    f"(where systemd-logind runs: loginctl enable-linger {user}).")
        done = self._run(["loginctl", "enable-linger", user])
        if done.returncode == 0:
            return "Enabled lingering: the agent starts at boot, before anyone logs in."
        reason = (done.stderr or done.stdout).strip() or f"exit {done.returncode}"
        return (f"Lingering was not enabled ({reason}): the agent starts when you log in, not at boot. "
                f"An administrator can run: sudo loginctl enable-linger {user}")


class Launchd:
    """`~/Library/LaunchAgents/com.itachi.agent.plist`, run by launchd in the user's GUI domain."""

    name = "launchd"

    def __init__(self, user_home: Path, *, which: Which = shutil.which, run: Run = run_tool) -> None:
        self.path = user_home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
        self._which, self._run = which, run
        self._domain = f"gui/{os.getuid()}"

    def render(self, service: AgentService) -> str:
        return render_launchd(service).decode("utf-8") + "\n"

    def install(self, service: AgentService) -> Outcome:
        out = Outcome()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(render_launchd(service))
        out.lines.append(f"Wrote {self.path}.")
        if not self._which("launchctl"):
            out.lines.append("launchctl is not available here, so nothing loads it now; launchd loads "
                             f"it at your next login. Meanwhile: itachi agent --home {service.home}")
            return out
        self._run(["launchctl", "bootout", f"{self._domain}/{LAUNCHD_LABEL}"])  # a previous version
        done = self._run(["launchctl", "bootstrap", self._domain, str(self.path)])
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
        if self._which("launchctl"):
            self._run(["launchctl", "bootout", f"{self._domain}/{LAUNCHD_LABEL}"])
        self.path.unlink()
        out.lines.append(f"Removed {self.path}; the agent is stopped and unloaded.")
        return out

    def status(self, home: Path) -> ServiceStatus:
        installed = self.path.exists()
        running, detail = None, "from the files"
        if installed and self._which("launchctl"):
            shown = self._run(["launchctl", "print", f"{self._domain}/{LAUNCHD_LABEL}"])
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


def manager_for(kind: str | None = None, *, user_home: Path | None = None, which: Which = shutil.which,
                run: Run = run_tool) -> SystemdUser | Launchd:
    """The service manager of this platform (launchd on macOS, systemd elsewhere), or the one named."""
    user_home = user_home or Path.home()
    if (kind or ("launchd" if sys.platform == "darwin" else "systemd")) == "launchd":
        return Launchd(user_home, which=which, run=run)
    return SystemdUser(user_home, which=which, run=run)


def _unit_home(path: Path) -> Path | None:
    """ITACHI_HOME as the unit sets it (the line `render_systemd` writes)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        for prefix in ('Environment="ITACHI_HOME=', "Environment=ITACHI_HOME="):
            if line.startswith(prefix):
                value = line[len(prefix):].removesuffix('"') if prefix.endswith('"') else line[len(prefix):]
                return Path(value.replace('\\"', '"').replace("\\\\", "\\").replace("%%", "%"))
    return None
