"""`itachi up`, `migrate`, `status`, `doctor`: run and inspect the local system."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chalicelib.contracts.local_home import DEFAULT_PORT, itachi_home

HOME_HELP = "state directory (default $ITACHI_HOME or ~/.local/share/itachi)"


def _home(args: argparse.Namespace) -> Path:
    home = itachi_home(getattr(args, "home", None))
    os.environ["ITACHI_HOME"] = str(home)
    return home


def _command(sub: Any, name: str, summary: str, func: Callable[[argparse.Namespace], int], *,
             port: bool = False) -> Any:
    """A verb that works on one state directory (--home) and, with port, one local API port."""
    p = sub.add_parser(name, help=summary)
    if port:
        p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--home", help=HOME_HELP)
    p.set_defaults(func=func)
    return p


def add_up_parser(sub: Any) -> None:
    p = _command(sub, "up", "run the whole local system in the foreground", cmd_up, port=True)
    p.add_argument("--no-agent", action="store_true", help="do not start the local task agent")


def cmd_up(args: argparse.Namespace) -> int:
    from infra.local.home import AlreadyRunning
    from infra.local.stack import StackOptions, run_forever

    home = _home(args)
    try:
        return run_forever(StackOptions(home=home, port=args.port,
                                        database_url=os.environ.get("DATABASE_URL") or None,
                                        with_agent=not args.no_agent))
    except AlreadyRunning as exc:
        print(f"Itachi is already running for {home} (pid {exc}). Use `itachi status`.")
        return 1


def add_migrate_parser(sub: Any) -> None:
    _command(sub, "migrate", "apply database migrations", cmd_migrate)


def cmd_migrate(args: argparse.Namespace) -> int:
    from chalicelib.kernel.migrations import apply_migrations
    from chalicelib.kernel.settings import Settings

    home = _home(args)
    settings = Settings.from_env()
    url, server = settings.database_url, None
    if not url:
        from infra.local.postgres import start_postgres

        home.mkdir(parents=True, exist_ok=True)
        server, url = start_postgres(home)
    try:
        applied = apply_migrations(url, embedding_dim=settings.embedding_dim,
                                   embedding_model=settings.embedding_model)
    finally:
        if server is not None:
            server.cleanup()
    print(f"applied {len(applied)} migration(s): {', '.join(applied)}" if applied
          else "database is up to date")
    return 0


def add_status_parser(sub: Any) -> None:
    _command(sub, "status", "show whether each part of the system is up", cmd_status)


def cmd_status(args: argparse.Namespace) -> int:
    from agent.health.status_report import collect_status, retention_line

    report = collect_status(_home(args))
    for part, (state, reason) in report.items():
        print(f"{part:<10} {state:<5} {reason}")
    if report["api"][0] == "up":
        print(f"{'retention':<10} {retention_line(_home(args))}")
    return 0 if all(state == "up" for state, _ in report.values()) else 1


def add_doctor_parser(sub: Any) -> None:
    _command(sub, "doctor", "check this machine and print what to fix", cmd_doctor, port=True)


def cmd_doctor(args: argparse.Namespace) -> int:
    from agent.health.doctor import run_checks

    problems = 0
    for check in run_checks(_home(args), args.port):
        mark = "ok " if check.ok else "FIX"
        print(f"[{mark}] {check.name}: {check.detail}")
        problems += 0 if check.ok else 1
    print("all checks passed" if not problems else f"{problems} problem(s) to fix")
    return 0 if not problems else 1
