"""Which memories the hooks already put in front of the model in this session.

$ITACHI_HOME/state/recall/<session_id>.json holds their ids: the prompt hook adds what it
injected, recall (`hooks/recall.py`) adds what it injected and skips anything listed. Best
effort: a lost write means a memory may be shown once more, never that the hook fails.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chalicelib.contracts.local_home import read_json

if TYPE_CHECKING:
    from hooks.runtime import HookContext


def state_path(ctx: HookContext) -> Path | None:
    session = "".join(c for c in ctx.session_id if c.isalnum() or c in "-_")[:100]
    return ctx.config.home / "state" / "recall" / f"{session}.json" if session else None


def shown(ctx: HookContext) -> set[str]:
    path = state_path(ctx)
    ids = read_json(path).get("shown") if path else None
    return {str(i) for i in ids} if isinstance(ids, list) else set()


def add(ctx: HookContext, ids: Iterable[Any]) -> None:
    path = state_path(ctx)
    new = {str(i) for i in ids if i}
    if path is None or not new:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"shown": sorted(shown(ctx) | new)}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass
