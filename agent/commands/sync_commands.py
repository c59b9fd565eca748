"""`itachi sync init|status|push|pull|files|forget`: end-to-end encrypted file sync.

Run in a checkout: the project is its git remote (as for the hooks), paths are relative to
its root. Exit codes: 0 done, 1 error (nothing changed), 3 conflicts (shown, nothing overwritten).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

CONFLICT_EXIT = 3


def add_sync_parser(sub: Any) -> None:
    p = sub.add_parser("sync", help="end-to-end encrypted sync of .env, CLAUDE.md, .claude/ and notes")
    p.add_argument("--project", help="project (default: this directory's)")
    verbs = p.add_subparsers(dest="sync_command", metavar="VERB", required=True)
    init = verbs.add_parser("init", help="create the passphrase file (~/.itachi-key, mode 0600)")
    init.add_argument("--stdin", action="store_true", help="read the passphrase from stdin instead of "
                      "generating one (to join machines that already sync)")
    init.set_defaults(func=cmd_init)
    status = verbs.add_parser("status", help="what is synced, changed here, or in conflict")
    status.set_defaults(func=cmd_status)
    push = verbs.add_parser("push", help="encrypt and push the synced files that changed here")
    push.add_argument("paths", nargs="*", help="only these files (relative to the repository root)")
    push.add_argument("--mine", action="append", default=[], metavar="PATH",
                      help="resolve a conflict by pushing this machine's version over the newer one")
    push.set_defaults(func=cmd_push)
    pull = verbs.add_parser("pull", help="fetch, decrypt and write what other machines pushed")
    pull.add_argument("--theirs", action="append", default=[], metavar="PATH",
                      help="resolve a conflict by taking the other machine's version")
    pull.set_defaults(func=cmd_pull)
    files = verbs.add_parser("files", help="the files the server holds (metadata only)")
    files.add_argument("--all", action="store_true", help="every project, not only this one")
    files.set_defaults(func=cmd_files)
    forget = verbs.add_parser("forget", help="stop syncing a file everywhere (local copies stay)")
    forget.add_argument("path")
    forget.set_defaults(func=cmd_forget)


def _api() -> Any:
    from chalicelib.contracts.api_transport import ApiClient

    return ApiClient.configured()


def _checkout(args: argparse.Namespace) -> Any:
    from agent.sync.session import open_checkout
    from chalicelib.contracts.local_home import itachi_home

    return open_checkout(itachi_home(), os.getcwd(), args.project)


def _run(action: Any) -> int:
    from agent.sync.key_file import KeyFileError
    from chalicelib.contracts.api_transport import ApiError

    try:
        return int(action())
    except KeyFileError as exc:
        print(f"sync: {exc}", file=sys.stderr)
    except ApiError as exc:
        print(f"sync failed: {exc.message}", file=sys.stderr)
    return 1


def cmd_init(args: argparse.Namespace) -> int:
    from agent.sync.key_file import create_key_file, key_path

    def init() -> int:
        path = key_path()
        given = sys.stdin.readline() if args.stdin else None
        origin = create_key_file(path, given)
        print(f"Sync key {origin} at {path} (mode 0600).")
        if origin == "generated":
            print("Copy this file to every machine that should sync (same path, mode 0600), or run "
                  "`itachi sync init --stdin` there with the same passphrase. Without it, synced files "
                  "cannot be read: the server only has ciphertext.")
        return 0

    return _run(init)


def cmd_push(args: argparse.Namespace) -> int:
    from agent.sync.forget import root_relative
    from agent.sync.session import sync_session
    from agent.sync.sync_render import render_push

    checkout = _checkout(args)

    def run() -> int:
        mine = [root_relative(checkout, p) for p in args.mine]
        paths = [root_relative(checkout, p) for p in args.paths] + mine
        with sync_session(checkout, _api()) as session:
            report = session.push(paths or None, frozenset(mine))
        print(render_push(checkout.project, report))
        return CONFLICT_EXIT if report.conflicts else 0

    return _run(run)


def cmd_pull(args: argparse.Namespace) -> int:
    from agent.sync.forget import root_relative
    from agent.sync.session import sync_session
    from agent.sync.sync_render import render_pull

    checkout = _checkout(args)

    def run() -> int:
        theirs = frozenset(root_relative(checkout, p) for p in args.theirs)
        with sync_session(checkout, _api()) as session:
            report = session.pull(theirs)
        print(render_pull(checkout.project, report), file=sys.stderr if report.failed else sys.stdout)
        return 1 if report.failed else CONFLICT_EXIT if report.conflicts else 0

    return _run(run)


def cmd_status(args: argparse.Namespace) -> int:
    from agent.sync.local_state import load_state
    from agent.sync.sync_render import render_status

    checkout = _checkout(args)

    def run() -> int:
        remote = _api().get("/api/sync/files", project=checkout.project)["files"]
        state = load_state(checkout.home, checkout.project, checkout.root)
        print(render_status(checkout, state, remote))
        return CONFLICT_EXIT if state.conflicts else 0

    return _run(run)


def cmd_files(args: argparse.Namespace) -> int:
    from agent.sync.sync_render import render_files

    def run() -> int:
        project = None if args.all else _checkout(args).project
        print(render_files(_api().get("/api/sync/files", project=project)["files"], project))
        return 0

    return _run(run)


def cmd_forget(args: argparse.Namespace) -> int:
    from agent.sync.forget import forget

    checkout = _checkout(args)

    def run() -> int:
        print(forget(checkout, _api(), args.path))
        return 0

    return _run(run)
