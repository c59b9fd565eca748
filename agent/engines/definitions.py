"""The coding engines the agent runs headless: an argv builder and a line parser each.

`ITACHI_ENGINE_<NAME>_COMMAND` (e.g. `ITACHI_ENGINE_CLAUDE_COMMAND="/opt/claude/bin/claude"`)
replaces the program; the flags stay. Tests point it at a fake engine.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.contracts.attachments import attached_images
from chalicelib.contracts.engine_events import EngineEvent, parse_line

_STREAM = ("--output-format", "stream-json", "--verbose")
_EDITS = ("--permission-mode", "acceptEdits")
READ_ONLY_MODES = frozenset({"plan", "default"})


def option_flags(name: str, options: Mapping[str, Any] | None) -> list[str]:
    """A task's engine options (a subagent profile's) as the engine's flags: Claude gets the
    system prompt appended, the permission mode, the model and the allowed tools; Codex and
    Gemini the model and, for a read-only mode, their read-only sandbox / approval mode."""
    options = options or {}
    model, mode = options.get("model"), options.get("permission_mode")
    if name == "claude":
        flags = ["--permission-mode", str(mode or "acceptEdits")]
        if options.get("system_prompt"):
            flags += ["--append-system-prompt", str(options["system_prompt"])]
        if options.get("allowed_tools"):
            flags += ["--allowedTools", ",".join(options["allowed_tools"])]
        return flags + (["--model", str(model)] if model else [])
    flags = ["-m", str(model)] if model else []
    if name == "codex":
        return [*flags, "--sandbox", "read-only"] if mode in READ_ONLY_MODES else [*flags, "--full-auto"]
    return [*flags, "--approval-mode", "default" if mode in READ_ONLY_MODES else "auto_edit"]


def with_system_prompt(prompt: str, name: str, options: Mapping[str, Any] | None) -> str:
    """Codex and Gemini have no system prompt flag: the profile's instructions lead the prompt."""
    system = (options or {}).get("system_prompt")
    if name == "claude" or not system:
        return prompt
    return f"{system}\n\n---\n\n{prompt}"


@dataclass(frozen=True)
class Engine:
    name: str
    program: tuple[str, ...]

    def task_argv(self, prompt: str, options: Mapping[str, Any] | None = None) -> list[str]:
        """Run one task to the end, printing NDJSON (with a task's engine options, if it has any)."""
        if options:
            prompt = with_system_prompt(prompt, self.name, options)
            if self.name == "codex":
                return [*self.program, "exec", "--json", *option_flags(self.name, options),
                        "--skip-git-repo-check", prompt]
            if self.name == "gemini":
                return [*self.program, "-p", prompt, "--output-format", "stream-json",
                        *option_flags(self.name, options)]
            return [*self.program, "-p", prompt, *_STREAM, *option_flags(self.name, options)]
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

    def session_argv(self, options: Mapping[str, Any] | None = None, resume: str | None = None, *,
                     prompt_tool: bool = False) -> list[str]:
        """A long-lived engine reading one stream-json user message per turn on stdin, continuing
        the engine's own session `resume` if given; with `prompt_tool` it asks its permission
        questions (ExitPlanMode's plan) on stdout and reads the answers on stdin (`plan_gate`)."""
        if not self.streams_input:
            raise ValueError(f"{self.name} has no stream-json input")
        flags = option_flags(self.name, options) if options else list(_EDITS)
        if prompt_tool:
            flags += ["--permission-prompt-tool", "stdio"]
        resuming = ["--resume", resume] if resume else []
        return [*self.program, *resuming, "-p", "--input-format", "stream-json", *_STREAM, *flags]

    def turn_argv(self, prompt: str, resume: str | None,
                  options: Mapping[str, Any] | None = None) -> list[str]:
        """One turn of a session, continuing the engine's own session `resume` (from its init line),
        with a task's engine options if it has any.

        Codex's first turn gets the images the turn names as `--image` (`codex exec resume` takes
        no images: later turns name their path, which Codex reads with its tools)."""
        if options:
            if resume is None:
                return self.task_argv(prompt, options)
            if self.name == "codex":
                return [*self.program, "exec", "--json", *option_flags(self.name, options),
                        "--skip-git-repo-check", "resume", resume, prompt]
            if self.name == "gemini":
                return [*self.program, "--resume", resume, "-p", prompt, "--output-format", "stream-json",
                        *option_flags(self.name, options)]
            return [*self.program, "--resume", resume, "-p", prompt, *_STREAM,
                    *option_flags(self.name, options)]
        if resume is None:
            images = attached_images(prompt) if self.name == "codex" else []
            if images:
                return [*self.program, "exec", "--json", f"--image={','.join(images)}", "--full-auto",
                        "--skip-git-repo-check", prompt]
            return self.task_argv(prompt)
        if self.name == "codex":
            return [*self.program, "exec", "--json", "--full-auto", "--skip-git-repo-check", "resume",
                    resume, prompt]
        if self.name == "gemini":
            return [*self.program, "--resume", resume, "-p", prompt, "--output-format", "stream-json",
                    "--approval-mode", "auto_edit"]
        return [*self.program, "--resume", resume, "-p", prompt, *_STREAM, *_EDITS]

    def gated_argv(self, options: Mapping[str, Any] | None = None) -> list[str]:
        """Codex or Gemini in their JSON-RPC mode, asking the agent before commands and edits."""
        if self.name == "codex":
            return [*self.program, "app-server"]
        if self.name == "gemini":
            model = (options or {}).get("model")
            return [*self.program, "--experimental-acp", "--approval-mode", "default",
                    *(["-m", str(model)] if model else [])]
        raise ValueError(f"{self.name} asks through its hooks")

    def parse(self, line: str) -> list[EngineEvent]:
        return parse_line(self.name, line)


def engine_for(name: str, env: Mapping[str, str]) -> Engine:
    override = env.get(f"ITACHI_ENGINE_{name.upper()}_COMMAND", "").strip()
    program: Sequence[str] = shlex.split(override) if override else (name,)
    return Engine(name, tuple(program))
