"""The agent's service definitions: a systemd user unit (Linux) and a launchd agent (macOS).

Both run `<this interpreter> -m agent.cli agent --home HOME [--machine-id M]`, restart it
`RESTART_DELAY_S` seconds after it exits, whatever the reason, and start it at login (and at
boot where systemd lingers). The environment written into them is the non-secret part of the
installing shell's: the key stays in `config.json`, which the agent reads.
"""

from __future__ import annotations

import plistlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from chalicelib.kernel.redaction import redact, secret_name

UNIT_NAME = "itachi-agent.service"
LAUNCHD_LABEL = "com.itachi.agent"
RESTART_DELAY_S = 5
# What the agent and its engines read besides ITACHI_*: where programs are, the locale, the
# engines' config folders and endpoints, AWS's profile and region, proxies and CA bundles.
_PASSED = frozenset({
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME",
    "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
    "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "https_proxy", "http_proxy", "no_proxy",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
})


@dataclass(frozen=True)
class AgentService:
    """What the service runs: this install's interpreter, the state directory, the machine."""

    python: str
    home: Path
    machine_id: str | None = None
    environment: Mapping[str, str] = field(default_factory=dict)

    @property
    def argv(self) -> list[str]:
        machine = ["--machine-id", self.machine_id] if self.machine_id else []
        return [self.python, "-m", "agent.cli", "agent", "--home", str(self.home), *machine]

    @property
    def log_path(self) -> Path:
        return self.home / "logs" / "agent.log"


def service_environment(env: Mapping[str, str], home: Path) -> tuple[dict[str, str], list[str]]:
    """(the variables to write into the service, the names left out because they hold secrets)."""
    kept: dict[str, str] = {}
    secret: list[str] = []
    for name, value in sorted(env.items()):
        if name == "ITACHI_HOME" or not (name in _PASSED or name.startswith("ITACHI_")):
            continue
        if secret_name(name) or redact(value) != value:
            secret.append(name)
        elif "\n" not in value and "\0" not in value:
            kept[name] = value
    return {"ITACHI_HOME": str(home), **kept}, secret


def render_systemd(service: AgentService) -> str:
    """The user unit's text (`systemd-analyze verify --user` accepts it)."""
    environment = "".join(f"Environment={_quoted(f'{k}={v}')}\n" for k, v in service.environment.items())
    return (
        "# Written by `itachi service install`; `itachi service uninstall` removes it.\n"
        "[Unit]\n"
        f"Description=Itachi task agent ({service.machine_id or 'this machine'})\n"
        "StartLimitIntervalSec=0\n"  # never give up restarting
        "\n[Service]\n"
        "Type=simple\n"
        f"ExecStart={' '.join(_quoted(arg, exec_line=True) for arg in service.argv)}\n"
        f"WorkingDirectory={_escaped(str(service.home))}\n"
        f"{environment}"
        "Restart=always\n"
        f"RestartSec={RESTART_DELAY_S}\n"
        "KillMode=mixed\n"  # SIGTERM to the agent, which stops its engines; SIGKILL to what is left
        "TimeoutStopSec=30\n"
        f"StandardOutput=append:{_escaped(str(service.log_path))}\n"
        "StandardError=inherit\n"
        "\n[Install]\n"
        "WantedBy=default.target\n"
    )


def render_launchd(service: AgentService) -> bytes:
    """The LaunchAgent property list."""
    return plistlib.dumps({
        "Label": LAUNCHD_LABEL,
        "ProgramArguments": service.argv,
        "WorkingDirectory": str(service.home),
        "EnvironmentVariables": dict(service.environment),
        "RunAtLoad": True,
        "KeepAlive": True,
        "ThrottleInterval": RESTART_DELAY_S,
        "ProcessType": "Standard",
        "StandardOutPath": str(service.log_path),
        "StandardErrorPath": str(service.log_path),
    })


def _escaped(text: str) -> str:
    """Escape what systemd would read as a specifier (`%h`) in any setting."""
    return text.replace("%", "%%")


_PLAIN = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def _quoted(text: str, *, exec_line: bool = False) -> str:
    """One word for a unit line: double-quoted unless plain; `$` doubled where systemd expands it."""
    text = _escaped(text)
    if exec_line:
        text = text.replace("$", "$$")
    if _PLAIN.fullmatch(text):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
