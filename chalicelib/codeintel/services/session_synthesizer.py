"""Session synthesizer (every 30 minutes): each completed session gets a summary memory (goal,
what changed, decisions, open ends) that the briefing shows.

The model writes it when one is configured (purpose `session_synthesis`, budgeted); otherwise,
over budget or on failure, `session_digest.digest` does. Bounded: at most `limit` sessions per
run, oldest first; a session is synthesized once (its product row).
"""

from __future__ import annotations

import json
from typing import Any

from chalicelib.codeintel.domain import session_digest
from chalicelib.codeintel.services.model_worker import ModelWorker
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "session-synthesizer"
PURPOSE = "session_synthesis"
CATEGORY = "session_summary"
MAX_PROMPT_CHARS = 12_000
SYSTEM = """You summarise one finished AI coding session for the next session on the same project.
Answer JSON: goal (one sentence), changed (what changed, naming files), decisions (choices made and
why, at most 5), open_ends (what is unfinished or should happen next, at most 5). Be concrete."""


class SessionSynthesizer(ModelWorker):
    def run(self, limit: int = 50) -> dict[str, int]:
        counts = {"synthesized": 0, "by_llm": 0}
        with self._units() as uow:
            sessions = uow.intel.sessions_without(WORKER, limit, with_transcript=False)
            files = {
                s["session_id"]: list(s["files_changed"] or []) or uow.intel.session_files(s["session_id"])
                for s in sessions
            }
        for session in sessions:
            sid = session["session_id"]
            synthesis, generator = self._synthesize(session, files[sid])
            draft = MemoryDraft(
                project=session["project"],
                category=CATEGORY,
                content=synthesis.render(sid),
                files=synthesis.files[:20],
                session_id=sid,
                significance=0.6,
                metadata={
                    "source": WORKER,
                    "generator": generator,
                    "ended_at": session["ended_at"].isoformat(),
                },
            )
            self._publisher.publish(WORKER, session["project"], sid, [draft], generator=generator)
            counts["synthesized"] += 1
            counts["by_llm"] += generator == "llm"
        return counts

    def _synthesize(self, session: dict[str, Any], files: list[str]) -> tuple[session_digest.Synthesis, str]:
        turns = session["transcript"] or []
        if self._llm.enabled:
            text = "\n".join(f"{t.get('role')}: {t.get('text')}" for t in turns)[-MAX_PROMPT_CHARS:]
            user = (
                f"Project: {session['project']}\nFiles changed: {json.dumps(files[:30])}\n"
                f"Last progress: {session['last_progress'] or ''}\nTranscript:\n{text}"
            )
            answer = self._llm.complete_json(PURPOSE, SYSTEM, user, session_digest.SCHEMA, max_tokens=500)
            synthesis = session_digest.from_answer(answer, files) if answer else None
            if synthesis is not None:
                return synthesis, "llm"
        return session_digest.digest(turns, files, session["summary"], session["last_progress"]), "rules"
