"""Style extractor (weekly): the project's coding style from the code its edits added (naming,
formatting, test habits, preferred libraries), one `style` memory shown as the "Style" line of
MEMORY.md's session context.

The rules measure; the model (purpose `style_extraction`, when configured) only words the
measurements as one line. Projects with no new edits since the last run are skipped.
"""

from __future__ import annotations

from typing import Any

from chalicelib.codeintel.domain.style_profile import profile
from chalicelib.codeintel.services.ports import CodeIntelUnits
from chalicelib.codeintel.services.publisher import Publisher
from chalicelib.llm.services.ports import LanguageModel
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "style-extractor"
PURPOSE = "style_extraction"
CATEGORY = "style"
MAX_EDITS = 2000
MAX_LINE = 300
SYSTEM = """You describe a project's coding style in one line of at most 40 words for an AI coding
agent, from measurements of the code it recently added. Keep every measured fact; add nothing."""
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"style": {"type": "string"}},
    "required": ["style"],
    "additionalProperties": False,
}


class StyleExtractor:
    def __init__(self, units: CodeIntelUnits, publisher: Publisher, llm: LanguageModel) -> None:
        self._units, self._publisher, self._llm = units, publisher, llm

    def run(self, max_projects: int = 20) -> dict[str, int]:
        counts = {"projects": 0, "changed": 0, "by_llm": 0}
        with self._units() as uow:
            due = uow.intel.projects_with_new_edits(WORKER, max_projects)
        for project, mark in due:
            with self._units() as uow:
                style = profile(uow.intel.edit_texts(project, MAX_EDITS))
            counts["projects"] += 1
            if style is None:
                continue
            measured = style.line()
            fingerprint = f"{CATEGORY}:{measured}"
            if self._publisher.unchanged(WORKER, project, "style", fingerprint):
                self._publisher.publish(WORKER, project, "style", [], mark=mark, fingerprint=fingerprint)
                continue
            line, generator = measured, "rules"
            if self._llm.enabled:
                answer = self._llm.complete_json(
                    PURPOSE, SYSTEM, f"Project: {project}\nMeasured: {measured}", SCHEMA, max_tokens=120
                )
                worded = " ".join(str((answer or {}).get("style") or "").split())
                if worded:
                    line, generator = worded[:MAX_LINE], "llm"
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
