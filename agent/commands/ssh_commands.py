"""`itachi ssh add|list|remove|test|exec`: SSH targets this machine reaches, with pinned host keys.

`add` connects once to see the host key the target presents and pins it only when it matches
`--fingerprint` (checked on the host: `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`), or
when `--trust` says to pin what it presents now (trust on first use). Without either, or when a
pinned key changed, nothing is pinned. Then the target is registered with the server so that
`/ssh <name>` and `/exec @<machine>` reach it through this machine.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any


def add_ssh_parser(sub: Any) -> None:
    p = sub.add_parser("ssh", help="SSH targets with pinned host keys (/ssh, /exec from Telegram)")
    verbs = p.add_subparsers(dest="ssh_command", metavar="VERB", required=True)
    add = verbs.add_parser("add", help="add (or re-pin) a target reached from this machine")
    add.add_argument("name")
    add.add_argument("--host", required=True)
    add.add_argument("--port", type=int, default=22)
    add.add_argument("--user", default=getpass.getuser())
    add.add_argument("--key", help="private key file (default: the ssh-agent's keys)")
    pin = add.add_mutually_exclusive_group()
    pin.add_argument("--fingerprint", help="the host key's SHA256:... fingerprint, checked on the host")
    pin.add_argument("--trust", action="store_true", help="pin the key the host presents now (first use)")
    add.add_argument("--machine", help="the registered machine this target reaches (/exec @machine)")
    add.add_argument("--platform", choices=("posix", "windows"), default="posix")
    add.add_argument("--allow", action="append", default=[], metavar="COMMAND",
                     help="a command prefix that runs without a confirmation button (repeatable)")
    add.add_argument("--remote-root", help="where remote task worktrees go on the target")
    add.set_defaults(func=cmd_add)
    verbs.add_parser("list", help="this machine's targets and their pins").set_defaults(func=cmd_list)
    remove = verbs.add_parser("remove", help="forget a target (here and on the server)")
    remove.add_argument("name")
    remove.set_defaults(func=cmd_remove)
    test = verbs.add_parser("test", help="connect with the pinned key and run a no-op")
    test.add_argument("name")
    test.set_defaults(func=cmd_test)
    run = verbs.add_parser("exec", help="run a command on a target from here, printing its output")
    run.add_argument("name")
    run.add_argument("--timeout", type=float, default=120.0)
    run.add_argument("command", nargs="+", help="the command (after --: itachi ssh exec box -- ls -la)")
    run.set_defaults(func=cmd_exec)


def _home() -> Any:
    from chalicelib.contracts.local_home import itachi_home

    return itachi_home()


def _machine() -> str:
    from agent.agent_config import AgentConfig

    return AgentConfig.load(_home()).machine_id


def cmd_add(args: argparse.Namespace) -> int:
    from agent.ssh.pinning import PinRefused, pin_target

    try:
        target, message = pin_target(args, _home())
    except PinRefused as exc:
        print(f"ssh add: {exc}", file=sys.stderr)
        return 1
    print(message)
    _register(target)
    return 0


def _register(target: Any) -> None:
    from agent.ssh.registration import register_target
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    try:
        register_target(ApiClient.configured(timeout_s=10), target, _machine())
        print(f"Registered {target.name} with the server (runs go through {_machine()}).")
    except ApiError as exc:
        print(f"Not registered with the server yet ({exc.message}); the agent registers it when it starts.",
              file=sys.stderr)


def cmd_list(args: argparse.Namespace) -> int:
    from agent.ssh.targets import load_targets

    targets = load_targets(_home())
    if not targets:
        print("No SSH targets here. Add one: itachi ssh add NAME --host HOST --fingerprint SHA256:...")
    for t in sorted(targets.values(), key=lambda t: t.name):
        reaches = f" -> machine {t.machine}" if t.machine else ""
        allowed = f"  allowed: {', '.join(t.allowed_commands)}" if t.allowed_commands else ""
        print(f"{t.name}: {t.user}@{t.host}:{t.port} ({t.platform}){reaches}  "
              f"{t.fingerprint or 'NOT PINNED (runs are refused)'}{allowed}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from agent.ssh.targets import remove_target
    from chalicelib.contracts.api_transport import ApiClient, ApiError

    found = remove_target(_home(), args.name)
    try:
        api = ApiClient.configured(timeout_s=10)
        api.delete(f"/api/ssh/targets/{args.name}?machine_id={_machine()}")
    except ApiError as exc:
        if not found or exc.status not in (404,):
            print(f"server: {exc.message}", file=sys.stderr)
    print(f"{args.name} removed." if found else f"No target {args.name} here.")
    return 0 if found else 1


def cmd_test(args: argparse.Namespace) -> int:
    args.command, args.timeout = ["echo", "itachi-ssh-ok"], 30.0
    return cmd_exec(args)


def cmd_exec(args: argparse.Namespace) -> int:
    from agent.ssh.connection import HostKeyRefused, SshConnectError, connect
    from agent.ssh.remote_exec import run_remote
    from agent.ssh.remote_shell import quote_argv
    from agent.ssh.targets import load_targets

    target = load_targets(_home()).get(args.name)
    words = [w for w in args.command if w != "--"] if args.command else []
    if target is None or not words:
        problem = f"no target {args.name} here" if target is None else "no command given"
        print(f"ssh: {problem}", file=sys.stderr)
        return 2
    command = words[0] if len(words) == 1 else quote_argv(words, target.platform)
    try:
        transport = connect(target)
    except (HostKeyRefused, SshConnectError) as exc:
        print(f"ssh: {exc}", file=sys.stderr)
        return 255

    def show(stream: str, text: str) -> None:
        (sys.stdout if stream == "stdout" else sys.stderr).write(text)

    try:
        result = run_remote(transport, command, target.platform, timeout_s=args.timeout, on_output=show)
    finally:
        transport.close()
    if result.timed_out:
        print(f"ssh: timed out after {args.timeout:g}s; the remote command was killed", file=sys.stderr)
        return 124
    return int(result.exit_code if result.exit_code is not None else 255)
