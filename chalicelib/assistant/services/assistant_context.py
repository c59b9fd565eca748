"""The assistant's context providers, in the order they go into the bot's system prompt:
personality (position 3 in the seed), what the user told us, the session briefing of the topic's
project, recent conversations, repositories, machine status. Each answers one section, empty
when it has nothing; the conversation skips one that fails."""

from __future__ import annotations

from collections.abc import Callable

from chalicelib.assistant.services.ports import Briefing, ListMachines, ListRepos, Memories
from chalicelib.assistant.services.user_model import GLOBAL, UserModel

Section = Callable[[str, str], str]  # (message, project) -> text


class AssistantContext:
    def __init__(
        self,
        user: UserModel,
        memories: Memories,
        briefing: Briefing,
        machines: ListMachines,
        repos: ListRepos,
    ) -> None:
        self._user, self._memories, self._briefing = user, memories, briefing
        self._machines, self._repos = machines, repos

    def leading(self) -> list[tuple[str, Section]]:
        return [
            ("Personality of the user (shape your tone)", self.personality),
            ("What the user told you about themselves", self.about_user),
            ("Session briefing", self.session_briefing),
        ]

    def trailing(self) -> list[tuple[str, Section]]:
        return [
            ("Recent conversations", self.conversations),
            ("Repositories", self.repositories),
            ("Machines", self.machine_status),
        ]

    def personality(self, message: str, project: str) -> str:
        return "\n".join(
            f"- {text} (confidence {conf:.2f}, seen {times}x)"
            for text, conf, times in self._user.top_traits()
        )

    def about_user(self, message: str, project: str) -> str:
        return "\n".join(f"- {fact}" for fact in self._user.about_user())

    def session_briefing(self, message: str, project: str) -> str:
        if project == GLOBAL:
            return ""
        b = self._briefing(project)
        lines = [f"- style: {b['style']}"] if b.get("style") else []
        lines += [f"- hot file: {h['path']} ({h['edits']} edits)" for h in b.get("hot_files", [])[:5]]
        lines += [f"- recent session: {s}" for s in b.get("session_summaries", [])[:2]]
        lines += [
            f"- active task: {t['description'][:120]} ({t['status']})" for t in b.get("active_tasks", [])
        ]
        return "\n".join(lines)

    def conversations(self, message: str, project: str) -> str:
        found = self._memories.recent(project, limit=4, category="conversation")
        return "\n".join(f"- {' '.join(m.content.split())[:300]}" for m in found)

    def repositories(self, message: str, project: str) -> str:
        names = {r["full_name"]: f"default branch {r['default_branch']}" for r in self._repos()[:40]}
        for machine in self._machines():
            for name in [*machine["projects"], *machine["repos"]]:
                names.setdefault(name, f"on {machine['id']}")
        return "\n".join(f"- {name}: {where}" for name, where in sorted(names.items())[:40])

    def machine_status(self, message: str, project: str) -> str:
        return "\n".join(
            f"- {m['id']}: {m['status']}, {m['assigned_tasks']}/{m['max_concurrent']} busy, "
            f"projects {', '.join(m['projects'][:8]) or 'none reported'}"
            for m in self._machines()
        )
