"""`itachi logs`: the server's and the agent's lines, from local files or CloudWatch Logs."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from chalicelib.contracts.log_lines import LEVELS, LogLine, LogQuery, parse_since


def add_logs_parser(sub: Any) -> None:
    p = sub.add_parser("logs", help="show the logs of the API, the consumers, the schedules and the agent")
    p.add_argument("--since", default="1h", help="how far back: 90s, 15m, 1h, 2d (default 1h)")
    p.add_argument("--task", help="only lines about this task (its id or first characters)")
    p.add_argument("--function", help="only this function: api, dispatch-consumer, agent, ...")
    p.add_argument("--level", type=str.upper, choices=LEVELS, help="this level and above")
    p.add_argument("--limit", type=int, default=200, help="the last N lines (default 200)")
    p.add_argument("--follow", "-f", action="store_true", help="keep printing new lines")
    p.add_argument("--aws", action="store_true", help="read CloudWatch Logs of the deployed stack")
    p.add_argument("--stack", default=os.environ.get("ITACHI_STACK", "itachi-prod"),
                   help="the deployed stack (default $ITACHI_STACK or itachi-prod)")
    p.add_argument("--region", default=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION"))
    p.add_argument("--endpoint-url", help=argparse.SUPPRESS)  # a CloudWatch Logs stand-in (tests)
    p.set_defaults(func=cmd_logs)


def source_for(args: argparse.Namespace) -> Any:
    if args.aws:
        from chalicelib.kernel.cloudwatch_logs import CloudWatchLogs

        return CloudWatchLogs(args.stack, region=args.region or "us-east-1", endpoint_url=args.endpoint_url)
    from chalicelib.contracts.local_home import itachi_home
    from chalicelib.contracts.log_files import LocalLogFiles

    return LocalLogFiles(itachi_home(None) / "logs")


def cmd_logs(args: argparse.Namespace) -> int:
    try:
        since = parse_since(args.since)
    except ValueError as exc:
        print(exc)
        return 2
    source = source_for(args)
    shown: set[tuple[Any, ...]] = set()
    while True:
        query = LogQuery(since, task=args.task, function=args.function, level=args.level, limit=args.limit)
        try:
            lines: list[LogLine] = source.search(query)
        except Exception as exc:  # credentials, a missing stack: say which, not a traceback
            print(f"cannot read the logs: {type(exc).__name__}: {exc}")
            return 1
        for line in lines:
            key = (line.at, line.function, line.message, tuple(line.ids.items()))
            if key not in shown:
                shown.add(key)
                print(line.render(), flush=True)
        if not args.follow:
            if not lines:
                print("no log lines match")
            return 0
        if lines:
            since = max(since, lines[-1].at)
        time.sleep(2.0)
