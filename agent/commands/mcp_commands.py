"""`itachi mcp`: serve Itachi's memory, rules and tasks as MCP tools over stdio.

`install-hooks` registers it with the client it installs for; `--print-config` prints the
entry for any other client (`--remote` for the API's own `/mcp` endpoint instead).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agent.commands.local_stack_commands import HOME_HELP


def add_mcp_parser(sub: Any) -> None:
    p = sub.add_parser("mcp", help="serve Itachi's tools to an MCP client over stdio")
    p.add_argument("--project", help="project to answer for (default: the working directory's)")
    p.add_argument("--home", help=HOME_HELP + "; its config.json names the API and key")
    p.add_argument("--print-config", action="store_true",
                   help="print the MCP server entry for a client's configuration and exit")
    p.add_argument("--client", default="json", choices=("json", "claude", "codex", "gemini"),
                   help="configuration format for --print-config (json: Claude Desktop, Cursor...)")
    p.add_argument("--remote", action="store_true",
                   help="with --print-config: the API's /mcp endpoint instead of a local process")
    # Written by install-hooks so uninstall-hooks can recognise the entry; it changes nothing.
    p.add_argument("--itachi-client", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_mcp)


def cmd_mcp(args: argparse.Namespace) -> int:
    import os

    from chalicelib.contracts.local_home import itachi_home, load_client_config

    if args.home:  # the same directory for this process and what it prints: one way to find the API
        os.environ["ITACHI_HOME"] = str(itachi_home(args.home))
    if args.print_config:
        from agent.installers.install_mcp import print_config

        remote = load_client_config().api_url if args.remote else None
        print(print_config(args.client, remote))
        return 0
    from agent.mcp_stdio import serve

    try:
        return serve(args.project)
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # the client only sees a closed pipe: say why on stderr
        print(f"itachi mcp: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise
