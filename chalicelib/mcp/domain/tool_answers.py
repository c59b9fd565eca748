"""Render API answers as the text an MCP tool returns to a model: short, with ids to act on."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
ITEM_CHARS = 1500


def _clip(text: Any, limit: int = ITEM_CHARS) -> str:
    value = str(text or "").strip()
    return value if len(value) <= limit else value[: limit - 1] + "… (clipped: memory_get shows all)"


def _day(value: Any) -> str:
    return str(value or "")[:10]


def _tags(memory: Json) -> str:
    tags = (memory.get("metadata") or {}).get("tags")
    return f" tags: {', '.join(map(str, tags))}" if isinstance(tags, list) and tags else ""


def _untrusted(memory: Json) -> str:
    """A mark on a quarantined memory: an agent's or a tool's text no person has promoted yet."""
    return f" (untrusted: from {memory.get('source')})" if memory.get("trusted") is False else ""


def search_text(answer: Json, query: str, project: str) -> str:
    hits = answer.get("results") or []
    if not hits:
        return f"No memories match {query!r} in {project} (or _global)."
    note = f" (ran as {answer.get('mode')}: {answer['degraded']})" if answer.get("degraded") else ""
    lines = [f"{len(hits)} memories for {query!r} in {project}{note}:"]
    for n, hit in enumerate(hits, 1):
        scope = "" if hit.get("project") == project else f" [{hit.get('project')}]"
        lines.append(f"{n}. [{hit.get('category')}]{_untrusted(hit)}{scope} "
                     f"score {float(hit.get('score') or 0):.2f} · "
                     f"{_day(hit.get('created_at'))} · id {hit.get('id')}{_tags(hit)}\n"
                     f"   {_clip(hit.get('content'))}")
    return "\n".join(lines)


def stored_text(answer: Json, project: str, category: str, origin: str = "agent") -> str:
    if answer.get("deduplicated"):
        return f"Already known: reinforced memory {answer.get('id')} in {project} instead of adding a copy."
    why = "an agent's finding" if origin == "agent" else "this key does not speak for a person"
    kept = (f" as untrusted ({why}): searchable, but not put in prompts or made a rule until a person "
            "promotes it") if not answer.get("trusted", origin != "agent") else f" as the {origin}'s words"
    return f"Stored memory {answer.get('id')} ({category}) in {project}{kept}."


def list_text(answer: Json, project: str, category: str | None, tag: str | None) -> str:
    items = answer.get("results") or []
    which = " ".join(part for part in (category and f"category {category}", tag and f"tag {tag}") if part)
    scope = f"{project}{' with ' + which if which else ''}"
    if not items:
        return f"No memories in {scope}."
    lines = [f"{len(items)} newest memories in {scope}:"]
    for memory in items:
        lines.append(f"- {_day(memory.get('created_at'))} [{memory.get('category')}]{_untrusted(memory)}"
                     f" id {memory.get('id')}"
                     f"{_tags(memory)}\n  {_clip(memory.get('content'), 400)}")
    return "\n".join(lines)


def memory_text(memory: Json) -> str:
    lines = [f"Memory {memory.get('id')} · {memory.get('project')} · [{memory.get('category')}]"
             f"{_untrusted(memory)}",
             f"created {memory.get('created_at')} · reinforced {memory.get('times_reinforced', 0)}x · "
             f"read {memory.get('access_count', 0)}x{_tags(memory)}"]
    if memory.get("summary"):
        lines.append(f"summary: {memory['summary']}")
    if memory.get("files"):
        lines.append(f"files: {', '.join(map(str, memory['files']))}")
    if memory.get("superseded_by"):
        lines.append(f"superseded by {memory['superseded_by']}")
    lines.append("")
    lines.append(str(memory.get("content") or ""))
    return "\n".join(lines)


def status_text(stats: Json, deployment: Json | None) -> str:
    by_category = stats.get("by_category") or {}
    counts = ", ".join(f"{name} {n}" for name, n in sorted(by_category.items(), key=lambda kv: -kv[1]))
    lines = [f"Project {stats.get('project')}: {stats.get('total', 0)} memories"
             f"{' (' + counts + ')' if counts else ''}.",
             f"Embedded: {stats.get('with_embedding', 0)} · reinforced: {stats.get('reinforced', 0)} · "
             f"last write: {stats.get('newest') or 'never'} · oldest: {stats.get('oldest') or '-'}"]
    embedding = (deployment or {}).get("embedding")
    if isinstance(embedding, dict):
        lines.append(f"Embedder: {embedding.get('provider')} {embedding.get('model')} "
                     f"({embedding.get('dimension')} dimensions).")
    return "\n".join(lines)


def rules_text(answer: Json) -> str:
    rules = [r for r in answer.get("rules") or [] if isinstance(r, dict)]
    if not rules:
        return f"No rules learned yet for {answer.get('project')}."
    lines = [f"Rules of {answer.get('project')} (strongest first):"]
    lines += [f"{n}. {r.get('text') or r.get('rule')} ({r.get('scope') or 'project'}, "
              f"confidence {float(r.get('confidence') or 0):.2f}, "
              f"reinforced {r.get('times_reinforced', 0)}x, "
              f"since {str(r.get('valid_from') or '?')[:10]})" for n, r in enumerate(rules, 1)]
    return "\n".join(lines)


def briefing_text(briefing: Json) -> str:
    lines = [f"# Briefing: {briefing.get('project')}"]
    for title, key in (("Recent decisions", "recent_decisions"), ("Active patterns", "active_patterns")):
        items = briefing.get(key) or []
        if items:
            lines += ["", f"## {title}", *[f"- {item}" for item in items]]
    hot = [h for h in briefing.get("hot_files") or [] if isinstance(h, dict)]
    if hot:
        lines += ["", "## Hot files", *[f"- {h.get('path')} ({h.get('edits', 0)} edits)" for h in hot]]
    tasks = [t for t in briefing.get("active_tasks") or [] if isinstance(t, dict)]
    if tasks:
        lines += ["", "## Active tasks",
                  *[f"- [{t.get('status')}] {_clip(t.get('description'), 200)}" for t in tasks]]
    sessions = [s for s in briefing.get("recent_sessions") or [] if isinstance(s, dict)]
    if sessions:
        lines += ["", "## Recent sessions",
                  *[f"- {_day(s.get('ended_at'))} {_clip(s.get('summary'), 300)}" for s in sessions]]
    return "\n".join(lines) if len(lines) > 1 else lines[0] + "\n\nNothing recorded yet."


def task_line(task: Json) -> str:
    return (f"- {task.get('id')} [{task.get('status')}] {_clip(task.get('description'), 160)}"
            f" · created {_day(task.get('created_at'))}")


def task_text(task: Json, events: list[Json]) -> str:
    lines = [f"Task {task.get('id')} · {task.get('project')} · {task.get('status')}",
             f"engine {task.get('current_engine') or task.get('engine') or 'auto'} · machine "
             f"{task.get('machine_id') or task.get('target_machine') or 'not yet assigned'} · "
             f"attempt {task.get('attempts', 0)}/{task.get('max_attempts')}",
             f"description: {_clip(task.get('description'), 600)}"]
    for label, key in (("summary", "result_summary"), ("error", "error"), ("branch", "branch")):
        if task.get(key):
            lines.append(f"{label}: {task[key]}")
    if task.get("files_changed"):
        lines.append(f"files changed: {', '.join(map(str, task['files_changed']))}")
    if events:
        lines.append("latest events:")
        lines += [f"  #{e.get('seq')} {e.get('kind')}: {_clip(e.get('text'), 200)}" for e in events]
    return "\n".join(lines)


def tasks_text(answer: Json, project: str, status: str | None) -> str:
    tasks = [t for t in answer.get("tasks") or [] if isinstance(t, dict)]
    scope = f"{project}{' in status ' + status if status else ''}"
    if not tasks:
        return f"No tasks in {scope}."
    return "\n".join([f"{len(tasks)} tasks in {scope}, newest first:", *map(task_line, tasks)])
