"""Repo expertise (daily): one document per repository (areas, key files, conventions, recent
decisions), served in the SessionStart briefing and appended to the prompts of tasks on it.

The model writes it from the gathered facts when configured (purpose `repo_expertise`); the
facts themselves are the document otherwise. Projects with no new edits since are skipped.
"""

from __future__ import annotations

import hashlib

from chalicelib.codeintel.domain.expertise import document, facts_from
from chalicelib.codeintel.services.model_worker import ModelWorker
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "repo-expertise"
PURPOSE = "repo_expertise"
CATEGORY = "repo_expertise"
MAX_DOCUMENT_CHARS = 2500
SYSTEM = """You write a short expertise document about one code repository for an AI coding agent
about to work on it: its areas, the key files and what they are for, the conventions to follow,
and the recent decisions. Use only the facts given. At most 12 lines of plain text."""


class RepoExpertise(ModelWorker):
    def run(self, max_projects: int = 20) -> dict[str, int]:
        counts = {"projects": 0, "changed": 0, "by_llm": 0}
        for project, mark in self._publisher.due(WORKER, max_projects):
            with self._units() as uow:
                facts = facts_from(
                    project,
                    uow.intel.file_counts(project, 50),
                    uow.intel.memory_texts(project, ("project_rule",), 5),
                    uow.intel.memory_texts(project, ("decision",), 5),
                    uow.intel.session_count(project),
                )
            fingerprint = document(facts)
            counts["projects"] += 1
            digest = _hash(fingerprint)
            if self._publisher.unchanged(WORKER, project, "document", digest, mark=mark):
                continue
            text = (
                self._llm.complete_text(PURPOSE, SYSTEM, fingerprint, max_tokens=600)
                if self._llm.enabled
                else None
            )
            generator = "llm" if text else "rules"
            content = (
                f"Repository expertise for {project}\n{text.strip()}"[:MAX_DOCUMENT_CHARS]
                if text
                else fingerprint
            )
            draft = MemoryDraft(
                project=project,
                category=CATEGORY,
                content=content,
                significance=0.7,
                files=tuple(p for p, _ in facts.files[:10]),
                metadata={"source": WORKER, "generator": generator},
            )
            counts["changed"] += self._publisher.publish(
                WORKER, project, "document", [draft], mark=mark, generator=generator, fingerprint=digest
            )
            counts["by_llm"] += generator == "llm"
        return counts

    def expertise_for(self, project: str) -> str | None:
        with self._units() as uow:
            return uow.intel.latest_memory(project, CATEGORY)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
