"""`itachi agent`: run this machine's task agent in the foreground."""

from __future__ import annotations

import argparse
from typing import Any

from agent.commands.local_stack_commands import HOME_HELP
from chalicelib.contracts.local_home import itachi_home


def add_agent_parser(sub: Any) -> None:
    p = sub.add_parser("agent", help="run the task agent of this machine (tasks and sessions)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--local", action="store_true", help="poll the local stack's SQS (from `itachi up`)")
    where.add_argument("--aws", action="store_true",
                       help="poll real SQS with credentials from the API (boto3's default chain "
                            "where the deployment vends none)")
    p.add_argument("--machine-id", help="this machine's id (default: $ITACHI_MACHINE_ID or the hostname)")
    p.add_argument("--home", help=HOME_HELP)
    p.set_defaults(func=cmd_agent)


def cmd_agent(args: argparse.Namespace) -> int:
    from agent.daemon import run_agent

    home = itachi_home(args.home)
    mode = "local" if args.local else "aws" if args.aws else "auto"
    return run_agent(home, mode=mode, machine_id=args.machine_id)
