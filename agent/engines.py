"""The coding engines the agent runs headless: an argv builder and a line parser each.

`ITACHI_ENGINE_<NAME>_COMMAND` (e.g. `ITACHI_ENGINE_CLAUDE_COMMAND="/opt/claude/bin/claude"`)
replaces the program; the flags stay. Tests point it at a fake engine.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chalicelib.tasks.domain.engine_events import EngineEvent, parse_line

_STREAM = ("--output-format", "stream-json", "--verbose")
_EDITS = ("--permission-mode", "acceptEdits")


@dataclass(frozen=True)
class Engine:
    name: str
    program: tuple[str, ...]

    def task_argv(self, prompt: str) -> list[str]:
        """Run one task to the end, printing NDJSON."""
        if self.name == "codex":
            return [*self.program, "exec", "--json", "--full-auto", "--skip-git-repo-check", prompt]
        if self.name == "gemini":
            return [*self.program, "-p", prompt, "--output-format", "stream-json",
                    "--approval-mode", "auto_edit"]
        return [*self.program, "-p", prompt, *_STREAM, *_EDITS]

    @property
    def streams_input(self) -> bool:
        """Claude Code reads one stream-json user turn at a time on stdin; Codex and Gemini CLI
        run one headless process per turn, resuming their own session."""
        return self.name == "claude"

    def session_argv(self) -> list[str]:
        """A long-lived engine reading one stream-json user message per turn on stdin."""
        if not self.streams_input:
            raise ValueError(f"{self.name} has no stream-json input")
        return [*self.program, "-p", "--input-format", "stream-json", *_STREAM, *_EDITS]

    def turn_argv(self, prompt: str, resume: str | None) -> list[str]:
        """One turn of a session, continuing the engine's own session `resume` (from its init line)."""
        if resume is None:
            return self.task_argv(prompt)
        if self.name == "codex":
            return [*self.program, "exec", "--json", "--full-auto", "--skip-git-repo-check", "resume",
                    resume, prompt]
        if self.name == "gemini":
            return [*self.program, "--resume", resume, "-p", prompt, "--output-format", "stream-json",
                    "--approval-mode", "auto_edit"]
        return [*self.program, "--resume", resume, "-p", prompt, *_STREAM, *_EDITS]

    def parse(self, line: str) -> list[EngineEvent]:
        return parse_line(self.name, line)


def engine_for(name: str, env: Mapping[str, str]) -> Engine:
    override = env.get(f"ITACHI_ENGINE_{name.upper()}_COMMAND", "").strip()
    program: Sequence[str] = shlex.split(override) if override else (name,)
    return Engine(name, tuple(program))
