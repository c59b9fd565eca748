"""Cross-project insights (weekly): lessons and rules confirmed in two or more projects are
proposed into `_global` as `global_proposal` memories naming where each came from. A proposal is
never a rule by itself: a person promotes it (`/learn _global: ...` in Telegram, or
`itachi remember ... --category project_rule --project _global`).

The model words the common rule when configured (purpose `cross_project`); otherwise the most
confident member's own words are used. A group whose members did not change is not proposed again.
"""

from __future__ import annotations

from chalicelib.codeintel.domain.cross_project import Group, confirmed_groups
from chalicelib.codeintel.services.model_worker import ModelWorker
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "cross-project"
PURPOSE = "cross_project"
CATEGORY = "global_proposal"
GLOBAL = "_global"
SOURCES = ("project_rule", "task_lesson")
MIN_CONFIDENCE = 0.5
MAX_ITEMS = 2000
MAX_GROUPS = 20
SYSTEM = """Several projects learned the same lesson independently. Write it once as a rule for
every project: one imperative sentence, no project names."""
class CrossProjectInsights(ModelWorker):
    def run(self) -> dict[str, int]:
        counts = {"groups": 0, "proposed": 0, "by_llm": 0}
        with self._units() as uow:
            items = uow.intel.learned(SOURCES, MIN_CONFIDENCE, MAX_ITEMS)
        for group in confirmed_groups(items)[:MAX_GROUPS]:
            counts["groups"] += 1
            if self._publisher.unchanged(WORKER, GLOBAL, group.key, group.fingerprint):
                continue
            rule, generator = self._wording(group)
            draft = MemoryDraft(
                project=GLOBAL,
                category=CATEGORY,
                content=f"Proposed for every project: {rule}",
                significance=0.6,
                confidence=min(i.confidence for i in group.items),
                source_ids=tuple(i.id for i in group.items),
                metadata={
                    "source": WORKER,
                    "status": "proposed",
                    "generator": generator,
                    "projects": list(group.projects),
                    "provenance": [
                        {
                            "project": i.project,
                            "memory_id": i.id,
                            "category": i.category,
                            "content": i.content[:300],
                        }
                        for i in group.items
                    ],
                },
            )
            counts["proposed"] += self._publisher.publish(
                WORKER, GLOBAL, group.key, [draft], generator=generator, fingerprint=group.fingerprint
            )
            counts["by_llm"] += generator == "llm"
        return counts

    def _wording(self, group: Group) -> tuple[str, str]:
        listed = "\n".join(f"- ({i.project}) {i.content}" for i in group.items)
        rule = self._worded(PURPOSE, SYSTEM, listed, "rule", 400)
        return (rule, "llm") if rule else (group.best.content, "rules")
