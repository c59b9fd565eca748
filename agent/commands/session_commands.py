"""`itachi session`: an interactive engine session on an agent machine, driven from here."""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import Any

from chalicelib.contracts.agent_api import SessionInputRequest

CLOSED = {"closed", "failed"}


def add_session_parser(sub: Any) -> None:
    p = sub.add_parser("session", help="talk to a long-lived engine session on an agent machine")
    p.add_argument("prompt", nargs="?", help="the first message (starts a new session)")
    p.add_argument("--machine", help="the machine to run it on")
    p.add_argument("--project", help="project id (default: this directory's project)")
    p.add_argument("--repo", help="repo path on the machine")
    p.add_argument("--id", dest="session_id", help="an existing session (with --send or --close)")
    p.add_argument("--send", help="send one message to the session given by --id")
    p.add_argument("--close", action="store_true", help="close the session given by --id")
    p.add_argument("--detach", action="store_true", help="start it and print its id, do not follow")
    p.set_defaults(func=cmd_session)


def cmd_session(args: argparse.Namespace) -> int:
    from chalicelib.contracts.agent_api import SessionStartRequest
    from chalicelib.contracts.api_transport import ApiClient, ApiError
    from chalicelib.contracts.project_identity import project_for

    client = ApiClient.configured()
    try:
        if args.session_id and args.send:
            print(client.post(f"/api/sessions/{args.session_id}/input",
                              SessionInputRequest(args.send).to_body())["seq"])
            return 0
        if args.session_id and args.close:
            print(client.post(f"/api/sessions/{args.session_id}/close")["status"])
            return 0
        if not args.prompt:
            print("give a prompt to start a session, or --id with --send/--close", file=sys.stderr)
            return 2
        start = SessionStartRequest(args.prompt, args.project or project_for(os.getcwd()),
                                    machine=args.machine, repo=args.repo)
        session = client.post("/api/sessions", start.to_body())
    except ApiError as exc:
        print(f"session: {exc.message}", file=sys.stderr)
        return 1
    print(f"session {session['id']} on {session['machine_id']}", flush=True)
    if args.detach:
        return 0
    threading.Thread(target=_relay_stdin, args=(client, session["id"]), daemon=True).start()
    return _follow(client, session["id"])


def _relay_stdin(client: Any, session_id: str) -> None:
    """Each line typed becomes one turn; end of input (Ctrl-D) or /close closes the session."""
    for line in sys.stdin:
        text = line.strip()
        if text == "/close":
            break
        if text:
            client.post(f"/api/sessions/{session_id}/input", SessionInputRequest(text).to_body())
    client.post(f"/api/sessions/{session_id}/close")


def _follow(client: Any, session_id: str) -> int:
    after = 0
    while True:
        page = client.get(f"/api/sessions/{session_id}/events", after=after)
        for event in page["events"]:
            if event["kind"] == "text" and event["text"]:
                print(event["text"], flush=True)
            elif event["kind"] in {"tool_use", "error", "rate_limit"}:
                print(f"[{event['kind']}] {event['text']}", flush=True)
        after = page["next_after"]
        if page["status"] in CLOSED and not page["events"]:
            print(f"session {page['status']}")
            return 0 if page["status"] == "closed" else 1
        time.sleep(0.5)
