"""Tasks on a repository get its expertise document after what the inner enricher (the learning
loop's lessons and rules) added. A lookup that fails leaves the prompt as the inner one made it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from chalicelib.kernel.logging import get_logger

HEADING = "## Repository expertise (Itachi)"


class Enricher(Protocol):
    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str: ...


class ExpertiseEnricher:
    def __init__(self, inner: Enricher, expertise_for: Callable[[str], str | None]) -> None:
        self._inner, self._expertise_for = inner, expertise_for

    def enrich(self, prompt: str, project: str, task_id: str | None = None) -> str:
        enriched = self._inner.enrich(prompt, project, task_id)
        try:
            document = self._expertise_for(project)
        except Exception:  # a task must still run without it
            get_logger().exception("repo expertise lookup failed", extra={"project": project})
            return enriched
        return f"{enriched}\n\n{HEADING}\n{document}" if document else enriched
