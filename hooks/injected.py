"""Which memories the hooks already put in front of the model in this session.

$ITACHI_HOME/state/recall/<session_id>.json holds their ids. SessionStart records the memories
its briefing carries (starting the list afresh after a compaction or a clear, whose context no
longer holds the earlier injections), the prompt hook and recall (`hooks/recall.py`) record
what they inject, and both skip anything listed: nothing is injected twice in a session. Best
effort: a lost write means a memory may be shown once more, never that the hook fails.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from chalicelib.contracts.local_home import read_json
from chalicelib.contracts.prompt_context import scope_of

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

    from hooks.runtime import HookContext


def state_path(ctx: HookContext) -> Path | None:
    session = "".join(c for c in ctx.session_id if c.isalnum() or c in "-_")[:100]
    return ctx.config.home / "state" / "recall" / f"{session}.json" if session else None


def shown(ctx: HookContext) -> set[str]:
    path = state_path(ctx)
    ids = read_json(path).get("shown") if path else None
    return {str(i) for i in ids} if isinstance(ids, list) else set()


def add(ctx: HookContext, ids: Iterable[Any], *, reset: bool = False) -> None:
    """Record `ids` as shown; `reset` forgets what was recorded before (a fresh context)."""
    path = state_path(ctx)
    new = {str(i) for i in ids if i}
    if path is None or not (new or reset):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        known = set() if reset else shown(ctx)
        temporary.write_text(json.dumps({"shown": sorted(known | new)}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


def briefing_ids(briefing: Any, learnings: Any, recent: Any) -> list[str]:
    """The memories a SessionStart briefing carries: its own, the rules, the recent memories."""
    ids = list(briefing.get("memory_ids") or []) if isinstance(briefing, dict) else []
    for answer, key in ((learnings, "rules"), (recent, "results")):
        items = answer.get(key) if isinstance(answer, dict) else None
        ids += [i.get("id") for i in items or [] if isinstance(i, dict)]
    return [str(i) for i in ids if i]


def _updated(item: dict[str, Any]) -> bool:
    """Whether a later memory restated one of this one's facts with another value."""
    metadata = item.get("metadata")
    return isinstance(metadata, dict) and bool(metadata.get("updated_by"))


def unseen(answer: Any, already: set[str], project: str, limits: tuple[int, ...]) -> Any:
    """A search answer without the memories shown before nor those a later memory updated (their
    metadata `updated_by`: search ranks the successor above them), at most `limits` (project,
    _global, namespaces: the last defaults to _global's)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
        return answer
    left = {"project": limits[0], "global": limits[1], "namespace": limits[-1]}
    kept = []
    for item in answer["results"]:
        if not isinstance(item, dict) or str(item.get("id")) in already or _updated(item):
            continue
        scope = scope_of(item.get("project"), project)
        if left[scope] > 0:
            left[scope] -= 1
            kept.append(item)
    return {**answer, "results": kept}
