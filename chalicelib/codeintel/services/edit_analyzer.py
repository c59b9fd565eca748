"""Edit analyzer (every 15 minutes): hot files, files changed together, churn and files whose
edits keep failing, stored as `pattern_observation` memories (the briefing's "Active patterns").

Only projects with edits newer than the last analysis are read (at most `max_projects` per run,
the last `WINDOW_DAYS` days, at most `MAX_EDITS` edits each). No model: counting is enough.
"""

from __future__ import annotations

from chalicelib.codeintel.domain.edit_patterns import analyze
from chalicelib.codeintel.services.ports import CodeIntelUnits
from chalicelib.codeintel.services.publisher import Publisher
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "edit-analyzer"
CATEGORY = "pattern_observation"
WINDOW_DAYS = 14
MAX_EDITS = 20_000


class EditAnalyzer:
    def __init__(self, units: CodeIntelUnits, publisher: Publisher) -> None:
        self._units, self._publisher = units, publisher

    def run(self, max_projects: int = 20) -> dict[str, int]:
        counts = {"projects": 0, "changed": 0, "patterns": 0}
        for project, mark in self._publisher.due(WORKER, max_projects):
            with self._units() as uow:
                edits = uow.intel.recent_edits(project, WINDOW_DAYS, MAX_EDITS)
            patterns = analyze(edits)
            drafts = [
                MemoryDraft(
                    project=project,
                    category=CATEGORY,
                    content=p.text,
                    files=p.files,
                    significance=0.5,
                    metadata={"source": WORKER, "kind": p.kind},
                )
                for p in patterns
            ]
            counts["projects"] += 1
            counts["patterns"] += len(drafts)
            counts["changed"] += self._publisher.publish(WORKER, project, "patterns", drafts, mark=mark)
        return counts
