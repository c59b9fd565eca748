"""Tool approvals for work started from Telegram: the engine's hooks ask the session's topic.

A session or task that carries a Telegram topic runs with `ITACHI_APPROVALS=1` and
`ITACHI_TELEGRAM_TOPIC`, so its PreToolUse hook (`hooks/pre_tool_use.py`) sends each call the
permission mode would ask about to that topic. `ITACHI_APPROVALS=0` in the agent's own
environment turns this off. `itachi approvals on|off` does the same for local sessions (the
client config's `"approvals"` key), for when the user is away.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any


def approval_env(record: Mapping[str, Any], base: Mapping[str, str]) -> dict[str, str]:
    """What to add to the engine's environment for this session or task."""
    topic = record.get("telegram_topic_id")
    if not topic or base.get("ITACHI_APPROVALS") == "0":
        return {}
    return {"ITACHI_APPROVALS": "1", "ITACHI_TELEGRAM_TOPIC": str(int(topic))}


def add_approvals_parser(sub: Any) -> None:
    p = sub.add_parser("approvals", help="ask in Telegram before tool calls of local sessions (while away)")
    p.add_argument("state", choices=("on", "off", "status"))
    p.set_defaults(func=cmd_approvals)


def cmd_approvals(args: argparse.Namespace) -> int:
    from chalicelib.contracts.local_home import itachi_home, read_json

    path = itachi_home() / "config.json"
    config = read_json(path)
    if args.state != "status":
        config["approvals"] = args.state == "on"
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        os.chmod(temporary, 0o600)  # the file holds the API key
        os.replace(temporary, path)
    state = "on" if config.get("approvals") is True else "off"
    print(f"tool approvals from Telegram for local sessions: {state}")
    return 0
