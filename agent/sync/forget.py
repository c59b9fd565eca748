"""`itachi sync forget PATH`: stop syncing a file on every machine, keeping every local copy.

The server gets a tombstone version (no ciphertext); machines that pull it drop the file from
their sync state and exclude it, as this one does at once.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.sync.checkout import Checkout
from agent.sync.local_state import checkout_lock, clear_pending, load_state, save_state
from agent.sync.session import this_machine
from agent.sync.sync_push import Api, remote_versions
from chalicelib.contracts.api_transport import ApiError
from chalicelib.contracts.sync_config import add_exclusion
from chalicelib.contracts.sync_paths import normalise


def root_relative(checkout: Checkout, path: str, cwd: str | None = None) -> str:
    """A path typed in a terminal (relative to cwd, or absolute) as a path relative to the root."""
    candidate = Path(cwd or os.getcwd(), path)
    if candidate.exists() or Path(path).is_absolute():
        try:
            return normalise(os.path.relpath(candidate.resolve(), checkout.root.resolve()))
        except ValueError:
            pass
    return normalise(path)


def forget(checkout: Checkout, api: Api, path: str) -> str:
    clean = root_relative(checkout, path)
    with checkout_lock(checkout.home, checkout.project, checkout.root):
        version = remote_versions(api, checkout.project).get(clean)
        if version is not None:
            body = {"project": checkout.project, "machine_id": this_machine(checkout.home),
                    "files": [{"path": clean, "base_version": version, "deleted": True}]}
            try:
                api.post("/api/sync/push", body)
            except ApiError as exc:
                if exc.status != 409:  # 409: it changed meanwhile; the exclusion below still holds here
                    raise
        add_exclusion(checkout.home, checkout.project, clean)
        state = load_state(checkout.home, checkout.project, checkout.root)
        state.files.pop(clean, None)
        state.conflicts.pop(clean, None)
        save_state(checkout.home, state)
        clear_pending(checkout.home, checkout.project, checkout.root, {clean})
    where = "on every machine" if version is not None else "here (the server did not have it)"
    return f"{clean} no longer syncs {where}; local copies are kept."
