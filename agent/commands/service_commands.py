"""`itachi service install|uninstall|status`: keep this machine's agent running across crashes and
reboots with a systemd user unit (Linux) or a launchd agent (macOS)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.commands.local_stack_commands import HOME_HELP

if TYPE_CHECKING:
    from agent.installers.service_control import Outcome
    from agent.installers.service_unit import AgentService

SERVICE_HINT = "itachi service install --home {home}"


def add_service_parser(sub: Any) -> None:
    p = sub.add_parser("service", help="run the agent as a service: restarted when it dies, started at boot")
    verbs = p.add_subparsers(dest="service_command", metavar="VERB", required=True)
    install = _verb(verbs, "install", "write, enable and start the agent's service", cmd_install)
    install.add_argument("--machine-id", help="this machine's id (default: config.json's, from itachi join)")
    install.add_argument("--python", default=sys.executable, help="interpreter that runs the agent")
    install.add_argument("--print", action="store_true", dest="print_only",
                         help="print the unit (or plist) and install nothing")
    _verb(verbs, "uninstall", "stop, disable and remove the agent's service", cmd_uninstall)
    _verb(verbs, "status", "say whether the service is installed, enabled and running", cmd_status)


def _verb(verbs: Any, name: str, summary: str, func: Any) -> Any:
    p = verbs.add_parser(name, help=summary)
    p.add_argument("--home", help=HOME_HELP)
    p.add_argument("--manager", choices=("systemd", "launchd"),
                   help="default: launchd on macOS, systemd elsewhere")
    p.set_defaults(func=func)
    return p


def _home(args: argparse.Namespace) -> Path:
    from chalicelib.contracts.local_home import itachi_home

    return itachi_home(args.home).absolute()


def cmd_install(args: argparse.Namespace) -> int:
    from chalicelib.contracts.local_home import read_json

    home = _home(args)
    machine_id = args.machine_id or str(read_json(home / "config.json").get("machine_id") or "") or None
    if args.print_only:
        from agent.installers.service_manager import manager_for

        service, secret = _service(home, machine_id, args.python)
        _say_left_out(secret, sys.stderr)
        print(manager_for(args.manager).render(service), end="")
        return 0
    return 0 if install_service(home, machine_id, args.python, manager=args.manager).ok else 1


def install_service(home: Path, machine_id: str | None, python: str, *,
                    manager: str | None = None) -> Outcome:
    """Install the service and say what happened (`running`: a service manager runs the agent now)."""
    from agent.installers.service_control import Outcome, up_supervisor
    from agent.installers.service_manager import manager_for
    from chalicelib.contracts.local_home import read_json

    if not read_json(home / "config.json").get("api_key"):
        print(f"cannot install the service: {home / 'config.json'} has no api_key, and the unit never "
              "holds one. Join this machine first (`itachi machines invite` elsewhere, then `itachi join`).",
              file=sys.stderr)
        return Outcome(ok=False)
    up = up_supervisor(home)
    if up:
        print(f"cannot install the service: `itachi up` (pid {up}) already runs and restarts the agent of "
              f"{home}.", file=sys.stderr)
        return Outcome(ok=False)
    service, secret = _service(home, machine_id, python)
    service.log_path.parent.mkdir(parents=True, exist_ok=True)
    outcome = manager_for(manager).install(service)
    for line in outcome.lines:
        print(line)
    _say_left_out(secret, sys.stdout)
    return outcome


def cmd_uninstall(args: argparse.Namespace) -> int:
    from agent.installers.service_manager import manager_for

    outcome = manager_for(args.manager).uninstall()
    for line in outcome.lines:
        print(line)
    return 0 if outcome.ok else 1


def cmd_status(args: argparse.Namespace) -> int:
    from agent.installers.service_manager import manager_for

    home = _home(args)
    status = manager_for(args.manager).status(home)
    if not status.installed:
        print(f"{status.manager}: not installed ({status.path} is missing): {SERVICE_HINT.format(home=home)}")
        return 1
    running = {True: "yes", False: "no", None: "unknown"}[status.running]
    print(f"{status.manager}: {status.path}\n  installed: yes\n  enabled: {'yes' if status.enabled else 'no'}"
          f"\n  running: {running} ({status.detail})\n  state directory: {status.home}")
    if status.home != home:
        print(f"  (it runs the agent of {status.home}, not of {home})")
    return 0 if status.running and status.enabled else 1


def _service(home: Path, machine_id: str | None, python: str) -> tuple[AgentService, list[str]]:
    from agent.installers.service_unit import AgentService, service_environment

    environment, secret = service_environment(os.environ, home)
    return AgentService(str(Path(python).absolute()), home, machine_id, environment), secret


def _say_left_out(secret: list[str], stream: Any) -> None:
    if secret:
        print(f"Left out of the service (they hold secrets; the agent reads its key from config.json): "
              f"{', '.join(secret)}", file=stream)
