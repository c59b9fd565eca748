"""`itachi machines invite` (on a machine with an admin key) and `itachi join URL --token T` (on the
new machine): the new machine gets its own machine key, its hooks and a running agent."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent.commands.local_stack_commands import HOME_HELP
from agent.commands.service_commands import SERVICE_HINT, install_service


def add_invite_verb(machines_parser: Any) -> None:
    verbs = machines_parser.add_subparsers(dest="machines_command", metavar="VERB")
    p = verbs.add_parser("invite", help="print a one-time `itachi join` command for a new machine")
    p.add_argument("--machine", required=True,
                   help="the new machine's id: the invite joins it only, and not while it has a live key")
    p.add_argument("--ttl", type=int, default=60, help="minutes the invite stays valid (default 60)")
    p.set_defaults(func=cmd_invite)


def add_join_parser(sub: Any) -> None:
    p = sub.add_parser("join", help="join this machine to an Itachi API with an invite token")
    p.add_argument("url", help="the API's URL, as the invite printed it")
    p.add_argument("--token", required=True, help="the one-time token of `itachi machines invite`")
    p.add_argument("--machine-id", help="this machine's id, if given it must be the invite's")
    p.add_argument("--home", help=HOME_HELP)
    p.add_argument("--python", default=sys.executable, help="interpreter for the hooks and the agent")
    p.add_argument("--no-hooks", action="store_true", help="do not install the Claude Code hooks")
    agent = p.add_mutually_exclusive_group()
    agent.add_argument("--no-agent", action="store_true", help="do not start the agent")
    agent.add_argument("--service", action="store_true",
                       help="run the agent as a service (`itachi service install`): restarted when it dies, "
                            "started at boot")
    p.set_defaults(func=cmd_join)


def cmd_invite(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError
    from chalicelib.contracts.local_home import load_client_config

    config = load_client_config()
    client = ApiClient(config)
    body = {"ttl_minutes": args.ttl, "machine_id": args.machine}
    try:
        invite = client.post("/api/machines/invites", body)
    except ApiError as exc:
        print(f"cannot invite: {exc.message}", file=sys.stderr)
        return 1
    # The URL this CLI reaches the API at is the one to give (the server only guesses its own).
    print(f"Run this on {invite['machine_id']} before {invite['expires_at']} (it works once):\n\n"
          f"  itachi join {config.api_url} --token {invite['token']}\n")
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiError, request_json
    from chalicelib.contracts.local_home import itachi_home, read_json
    from infra.local.home import write_private_json

    home, url = itachi_home(args.home), args.url.rstrip("/")
    body = {"token": args.token, **({"machine_id": args.machine_id} if args.machine_id else {})}
    try:
        joined = request_json(url, "", "POST", "/api/machines/join", body, timeout_s=30)
    except ApiError as exc:
        print(f"cannot join: {exc.message}", file=sys.stderr)
        return 1
    home.mkdir(parents=True, exist_ok=True)
    config = read_json(home / "config.json")
    write_private_json(home / "config.json", {**config, "api_url": url, "api_key": joined["api_key"],
                                              "machine_id": joined["machine_id"]})
    print(f"Joined as machine {joined['machine_id']} (key {joined['key_name']}, in "
          f"{home / 'config.json'}, mode 0600).")
    ok = args.no_hooks or _install_hooks(args.python)
    if args.service:
        ok = _supervise(home, joined["machine_id"], args.python) and ok
    elif not args.no_agent:
        ok = _start_agent(home, joined["machine_id"], args.python) and ok
        print(f"It stops with a crash or a reboot; to keep it running: {SERVICE_HINT.format(home=home)}")
    return 0 if ok else 1


def _install_hooks(python: str) -> bool:
    from agent.installers.install_hooks import InstallError, install_hooks
    from agent.installers.install_mcp import install_mcp

    try:
        print(f"Installed Itachi hooks for claude in {install_hooks('user', 'claude', Path.cwd(), python)}")
        print(f"Registered the Itachi MCP server in {install_mcp('user', 'claude', Path.cwd(), python)}")
    except (InstallError, OSError) as exc:
        print(f"cannot install the hooks: {exc}", file=sys.stderr)
        return False
    return True


def _supervise(home: Path, machine_id: str, python: str) -> bool:
    """Install the agent's service; where no service manager runs it now, start the agent too."""
    outcome = install_service(home, machine_id, python)
    if outcome.ok and not outcome.running:
        return _start_agent(home, machine_id, python)
    return outcome.ok


def _start_agent(home: Path, machine_id: str, python: str) -> bool:
    """Start `itachi agent` in the background (its own session, output in logs/agent.log)."""
    pid_file = home / "run" / "agent.pid"
    running = _alive(pid_file)
    if running:
        print(f"An agent already runs for {home} (pid {running}).")
        return True
    (home / "run").mkdir(parents=True, exist_ok=True)
    (home / "logs").mkdir(parents=True, exist_ok=True)
    with open(home / "logs" / "agent.log", "ab") as log:
        process = subprocess.Popen(
            [python, "-m", "agent.cli", "agent", "--home", str(home), "--machine-id", machine_id],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, "ITACHI_HOME": str(home)})
    pid_file.write_text(str(process.pid), encoding="utf-8")
    print(f"Started the agent (pid {process.pid}; log {home / 'logs' / 'agent.log'}).")
    return True


def _alive(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text(encoding="utf-8").strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid
