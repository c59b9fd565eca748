"""The hooks' sync worker: `python -I -m agent.sync.worker pull|push ROOT PROJECT [PATH ...]`.

Hooks stay stdlib-only and fast: SessionStart starts this worker when the server has news (or
pushes wait in the spool) and waits for it only as long as its own deadline allows; after that
the worker finishes on its own. PostToolUse starts it with the edited synced files, which are
spooled first, so an offline push is retried by the next hook instead of being lost.
Never prints; one line per run goes to `$ITACHI_HOME/logs/hooks.log` (counts, never contents).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from agent.sync.checkout import Checkout
from agent.sync.key_file import KeyFileError
from agent.sync.local_state import add_pending, pending_paths
from agent.sync.session import sync_session
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.contracts.local_home import load_client_config
from chalicelib.contracts.sync_config import load_project_sync
from hooks.runtime import write_log

TIMEOUT_S = 30.0


def run(action: str, root: Path, project: str, paths: list[str]) -> str:
    config = load_client_config()
    checkout = Checkout(config.home, root, load_project_sync(config.home, project))
    if not checkout.config.enabled:
        return "disabled"
    if action == "push" and paths:
        add_pending(config.home, project, root, [p for p in paths if checkout.config.syncs(p)])
    api = ApiClient(config, timeout_s=TIMEOUT_S)
    notes = []
    with sync_session(checkout, api) as session:
        if action == "pull":
            pulled = session.pull()
            notes.append(f"written={len(pulled.written)} conflicts={len(pulled.conflicts)} "
                         f"failed={len(pulled.failed)}")
        spooled = pending_paths(config.home, project, root)
        if spooled:
            pushed = session.push(spooled)
            notes.append(f"pushed={len(pushed.pushed)} push_conflicts={len(pushed.conflicts)}")
    return " ".join(notes) or "nothing"


def main(argv: list[str]) -> int:
    start = time.monotonic()
    if len(argv) < 3 or argv[0] not in {"pull", "push"}:
        return 2
    action, root, project, paths = argv[0], Path(argv[1]), argv[2], argv[3:]
    try:
        outcome = f"ok {run(action, root, project, paths)}"
    except KeyFileError:
        outcome = "no-key"
    except ApiError as exc:  # offline: the spool keeps the paths for the next hook
        outcome = f"offline status={exc.status}"
    except Exception as exc:  # fail open, like the hooks that start it
        outcome = f"error:{type(exc).__name__}"
    ms = int((time.monotonic() - start) * 1000)
    write_log(load_client_config().home, f"sync_worker {action} {outcome} ms={ms}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
