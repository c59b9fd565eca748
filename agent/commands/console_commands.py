"""`itachi console`: print a one-time sign-in link to the web console (needs an admin key)."""

from __future__ import annotations

import argparse
from typing import Any


def add_console_parser(sub: Any) -> None:
    p = sub.add_parser("console", help="print a one-time sign-in link to the web console (valid 10 minutes)")
    p.set_defaults(func=cmd_console)


def cmd_console(args: argparse.Namespace) -> int:
    from chalicelib.contracts.api_transport import ApiClient, ApiError
    from chalicelib.contracts.local_home import load_client_config

    config = load_client_config()
    try:
        link = ApiClient(config).post("/api/console/links")
    except ApiError as exc:
        print(f"cannot open a console link: {exc.message}")
        return 1
    print(f"Open within 10 minutes (once): {config.api_url.rstrip('/')}{link['path']}")
    print(f"The console, to sign in with the API key instead: {config.api_url.rstrip('/')}/console")
    return 0
