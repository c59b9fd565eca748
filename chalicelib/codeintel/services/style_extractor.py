"""Style extractor (weekly): the project's coding style from the code its edits added (naming,
formatting, test habits, preferred libraries), one `style` memory shown as the "Style" line of
MEMORY.md's session context.

The rules measure; the model (purpose `style_extraction`, when configured) only words the
measurements as one line. Projects with no new edits since the last run are skipped.
"""

from __future__ import annotations

from chalicelib.codeintel.domain.style_profile import profile
from chalicelib.codeintel.services.model_worker import ModelWorker
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "style-extractor"
PURPOSE = "style_extraction"
CATEGORY = "style"
MAX_EDITS = 2000
MAX_LINE = 300
SYSTEM = """You describe a project's coding style in one line of at most 40 words for an AI coding
agent, from measurements of the code it recently added. Keep every measured fact; add nothing."""
class StyleExtractor(ModelWorker):
    def run(self, max_projects: int = 20) -> dict[str, int]:
        counts = {"projects": 0, "changed": 0, "by_llm": 0}
        for project, mark in self._publisher.due(WORKER, max_projects):
            with self._units() as uow:
                style = profile(uow.intel.edit_texts(project, MAX_EDITS))
            counts["projects"] += 1
            if style is None:
                continue
            measured = style.line()
            fingerprint = f"{CATEGORY}:{measured}"
            if self._publisher.unchanged(WORKER, project, "style", fingerprint, mark=mark):
                continue
            user = f"Project: {project}\nMeasured: {measured}"
            worded = self._worded(PURPOSE, SYSTEM, user, "style", MAX_LINE)
            line, generator = (worded, "llm") if worded else (measured, "rules")
            draft = MemoryDraft(
                project=project,
                category=CATEGORY,
                content=f"Style: {line}",
                significance=0.6,
                metadata={"source": WORKER, "generator": generator, "measured": measured},
            )
            counts["changed"] += self._publisher.publish(
                WORKER, project, "style", [draft], mark=mark, generator=generator, fingerprint=fingerprint
            )
            counts["by_llm"] += generator == "llm"
        return counts
