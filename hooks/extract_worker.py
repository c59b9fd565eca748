"""Deliver one spooled insight-extraction request, detached from the SessionEnd hook.

Run as ``python -I -S hooks/launch.py extract_worker <outbox entry>`` (see `hooks.detached`).
It then replays a bounded part of the rest of the outbox while it has the API's attention.
"""

from __future__ import annotations

from pathlib import Path

from hooks.runtime import HookContext, fail_open

BUDGET_S = 60.0  # extraction may run an LLM server-side; no user is waiting on this process


def handle(ctx: HookContext) -> None:
    """Claim the entry named on the command line and send it (it stays spooled on failure)."""
    entry = Path(ctx.argv[0]) if ctx.argv else None
    # Only ever touch our own outbox: claiming renames the file it is given.
    if entry is None or entry.resolve().parent != ctx.api.outbox.root.resolve():
        return None
    claimed = ctx.api.outbox.claim(entry)
    if claimed is not None:  # None: a replay in another hook already took it
        ctx.notes.append(f"extract={ctx.api.deliver(claimed)}")
    return None


def main() -> None:
    """The hook's entry point (`hooks/launch.py` calls it; so does `python -m`)."""
    fail_open("extract_worker", handle, budget_s=BUDGET_S, replay_limit=20)


if __name__ == "__main__":
    main()
