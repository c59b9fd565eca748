"""Transcript indexer (hourly): each ended session's transcript becomes searchable memories of
category `transcript`: chunked by whole turns, redacted again, one memory per chunk. Search
leaves the category out unless it is asked for, so transcripts never crowd the prompt injection.
Bounded: `limit` sessions per run; a session is indexed once."""

from __future__ import annotations

from chalicelib.codeintel.domain.transcript_chunks import chunks
from chalicelib.codeintel.services.ports import CodeIntelUnits, Redact
from chalicelib.codeintel.services.publisher import Publisher
from chalicelib.memory.domain.memory_model import MemoryDraft

WORKER = "transcript-indexer"
CATEGORY = "transcript"


class TranscriptIndexer:
    def __init__(self, units: CodeIntelUnits, publisher: Publisher, redact: Redact) -> None:
        self._units, self._publisher, self._redact = units, publisher, redact

    def run(self, limit: int = 20) -> dict[str, int]:
        counts = {"sessions": 0, "chunks": 0}
        with self._units() as uow:
            sessions = uow.intel.sessions_without(WORKER, limit, with_transcript=True)
        for session in sessions:
            pieces = chunks(session["transcript"] or [], self._redact)
            drafts = [
                MemoryDraft(
                    project=session["project"],
                    category=CATEGORY,
                    content=piece,
                    session_id=session["session_id"],
                    significance=0.3,
                    metadata={"source": WORKER, "chunk": i, "of": len(pieces)},
                )
                for i, piece in enumerate(pieces)
            ]
            self._publisher.publish(WORKER, session["project"], session["session_id"], drafts)
            counts["sessions"] += 1
            counts["chunks"] += len(drafts)
        return counts
