"""The default PromptEnricher: the task as written, followed by the project's standing rules."""

from __future__ import annotations

from typing import Protocol


class RulesSource(Protocol):
    def rules(self, project: str) -> list[str]: ...


class RulesPromptEnricher:
    """Append `project_rule` memories; the learning loop replaces this with ranked lessons."""

    def __init__(self, source: RulesSource) -> None:
        self._source = source

    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        rules = self._source.rules(project)
        if not rules:
            return prompt
        listed = "\n".join(f"- {rule.strip()}" for rule in rules if rule.strip())
        return f"{prompt}\n\n## Project rules ({project})\n{listed}\n"
