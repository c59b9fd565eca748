"""Turn API answers into the short texts a hook injects: briefing, rules, memory matches."""

from __future__ import annotations

# The prompt hook's block is shared with `itachi context --prompt` and the console's preview.
from chalicelib.contracts.prompt_context import (
    RECALLED,
    STALE_AFTER_DAYS,
    graph_context,
    memory_line,
    search_context,
    stale_after_days,
    trim,
)

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

    Json = dict[str, Any]

MAX_RULES = 15
MAX_CONTEXT_CHARS = 6000
__all__ = ["graph_context", "memory_line", "rule_lines", "search_context", "session_context_lines",
           "session_start_context", "stale_after_days", "trim"]


def _items(answer: Json | None, key: str) -> list[Any]:
    value = (answer or {}).get(key)
    return value if isinstance(value, list) else []


def session_context_lines(briefing: Json | None, recent: Json | None,
                          stale_after: int = STALE_AFTER_DAYS) -> list[str]:
    """Lines for MEMORY.md's session context: hot files, patterns, decisions, tasks, recent (with
    each memory's age)."""
    lines: list[str] = []
    style = (briefing or {}).get("style")
    if isinstance(style, str) and style:
        lines.append(f"**Style**: {trim(style.removeprefix('Style:'), 220)}")
    hot = [h for h in _items(briefing, "hot_files") if isinstance(h, dict)]
    if hot:
        listed = ", ".join(f"{h.get('path')} ({h.get('edits', 0)} edits)" for h in hot[:8])
        lines.append(f"**Hot files**: {listed}")
    patterns = [trim(p, 80) for p in _items(briefing, "active_patterns")[:6]]
    if patterns:
        lines.append(f"**Active patterns**: {'; '.join(patterns)}")
    expertise = (briefing or {}).get("repo_expertise")
    if isinstance(expertise, str) and expertise:
        known = [trim(x, 220) for x in expertise.splitlines()[1:] if x.strip()]
        _block(lines, "Repo expertise", known, limit=4)
    _block(lines, "Session summaries", [trim(x, 220) for x in _items(briefing, "session_summaries")], limit=2)
    _block(lines, "Recent decisions", [trim(d, 200) for d in _items(briefing, "recent_decisions")])
    tasks = [t for t in _items(briefing, "active_tasks") if isinstance(t, dict)]
    _block(lines, "Active tasks", [f"[{t.get('status')}] {trim(t.get('description'), 160)}" for t in tasks])
    sessions = [s for s in _items(briefing, "recent_sessions") if isinstance(s, dict)]
    _block(
        lines,
        "Recent sessions",
        [f"{str(s.get('ended_at') or '')[:10]} {trim(s.get('summary'), 180)}".strip() for s in sessions],
        limit=3,
    )
    recent_lines = [memory_line(m, stale_after=stale_after) for m in _items(recent, "results")]
    _block(lines, "Recent memory", recent_lines)
    return lines or ["_No briefing yet for this project._"]


def rule_lines(learnings: Json | None) -> list[str]:
    """Live rules (`/api/rules`), most important first as the API sorts them, capped at MAX_RULES; a
    namespace's rule says whose it is, a project rule overriding one says so."""
    rules = [r for r in _items(learnings, "rules")
             if isinstance(r, dict) and (r.get("text") or r.get("rule")) and not r.get("valid_until")]
    lines = [
        f"- {trim(str(r.get('text') or r.get('rule')), 200)} "
        f"(reinforced {int(r.get('times_reinforced') or 1)}x){_level(r)}"
        for r in rules[:MAX_RULES]
    ]
    return lines or ["_No project rules learned yet._"]


def _level(rule: Json) -> str:
    """` (acme rule)` for the namespace acme's, ` (project rule, overrides acme's)` for one overriding it."""
    if isinstance(rule.get("namespace"), str) and rule["namespace"]:
        return f" ({rule['namespace']} rule)"
    overridden = [f"{o['namespace']}'s" for o in rule.get("overrides") or []
                  if isinstance(o, dict) and isinstance(o.get("namespace"), str)]
    return f" (project rule, overrides {' and '.join(overridden)})" if overridden else ""


def session_start_context(
    project: str, briefing: Json | None, learnings: Json | None, recent: Json | None,
    stale_after: int = STALE_AFTER_DAYS,
) -> str:
    """The additionalContext printed by the SessionStart hook ('' when the API gave nothing)."""
    if briefing is None and learnings is None and recent is None:
        return ""
    parts = [f"=== Itachi Session Briefing ({project}) ===", RECALLED]
    parts += session_context_lines(briefing, recent, stale_after)
    if learnings is not None:
        parts += ["", "Project rules:", *rule_lines(learnings)]
    text = "\n".join(parts)
    return text if len(text) <= MAX_CONTEXT_CHARS else text[: MAX_CONTEXT_CHARS - 1] + "…"


def _block(lines: list[str], title: str, items: list[str], limit: int = 5) -> None:
    items = [i for i in items if i]
    if items:
        lines.append(f"**{title}**:")
        lines.extend(f"- {i}" if not i.startswith("- ") else i for i in items[:limit])
