"""The store pipeline: what a prompt or a finished session tells goes into the graph.

`submit` puts the text on the `ingest` queue (the prompt hook never waits for it: a prompt's
message is delayed `PROMPT_DELAY_S`, so that the pipeline does not compete with the request that
queued it for the cores and, locally, the interpreter); `run` is the
consumer's work, once per text (keyed by project and content). With a model configured: classify,
filter for storage and extract instructions, then the store tool loop (at most 8 turns and 30 s),
the force-store fallback when the loop stored nothing, and the reconciliation of new
instructions with the old ones. Without one (or when the model fails) the heuristic extractor
writes the graph and the instructions' wording reconciles them (`domain/reconcile_rules.py`).
The new instructions of trusted text are then handed to the instruction store (`on_instructions`,
the learning loop's `ProjectRules.absorb_stated`), which owns which rules are live.
Every run leaves a trace (`itachi graph trace ID`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from chalicelib.graph.domain.graph_model import Contradiction, Node
from chalicelib.graph.domain.heuristic_extractor import Extraction, extract
from chalicelib.graph.services.graph_service import Clock, GraphService, utc_now
from chalicelib.graph.services.graph_writer import write_extraction
from chalicelib.graph.services.llm_extraction import LlmStorePipeline
from chalicelib.graph.services.ports import GraphUnits
from chalicelib.graph.services.reconciler import Reconciler
from chalicelib.kernel.logging import get_logger
from chalicelib.kernel.redaction import redact
from chalicelib.llm.services.ports import LanguageModel, ToolModel
from chalicelib.memory.domain.provenance import SOURCES
from chalicelib.memory.services.ports import Embedder

MAX_TEXT = 20_000
TRACE_DAYS = 7
# A prompt's store pipeline starts this long after the hook's request queued it: past the hook's
# deadline (0.5 s), so it never runs beside the request that is still answering the hook.
PROMPT_DELAY_S = 1


def store_key(project: str, text: str) -> str:
    return hashlib.sha256(f"{project}\x00{' '.join(text.split())}".encode()).hexdigest()


class GraphStore(GraphService):
    def __init__(
        self,
        units: GraphUnits,
        embedder: Embedder | None,
        llm: LanguageModel,
        tools: ToolModel | None,
        enqueue: Callable[[dict[str, Any], int], Any],
        *,
        clock: Clock = utc_now,
        on_contradiction: Callable[[Contradiction], None] | None = None,
        on_instructions: Callable[[str, Sequence[Node], Sequence[dict[str, Any]]], None] | None = None,
    ) -> None:
        super().__init__(units, embedder, llm, tools, clock)
        self._enqueue = enqueue
        self._on_contradiction = on_contradiction
        self._on_instructions = on_instructions

    def submit(
        self, project: str, text: str, source: str = "user", origin: dict[str, Any] | None = None,
        *, delay_s: int = 0,
    ) -> str:
        """Queue `text` for the store pipeline, delivered after `delay_s`; answer its key. Runs
        inline if the queue is down."""
        text = redact(text)[:MAX_TEXT]
        message = {
            "kind": "graph_store",
            "project": project,
            "text": text,
            "source": source,
            "origin": origin or {},
            "key": store_key(project, text),
        }
        try:
            self._enqueue(message, delay_s)
        except Exception:
            get_logger().exception("ingest queue unavailable; storing into the graph inline")
            self.run(message)
        return str(message["key"])

    def run(self, message: dict[str, Any]) -> dict[str, Any]:
        project, text = str(message["project"]), str(message["text"])[:MAX_TEXT]
        source = str(message.get("source")) if message.get("source") in SOURCES else "user"
        key = str(message.get("key") or store_key(project, text))
        with self._units() as uow:
            if not uow.graph.claim(key):
                return {"replayed": True}
        started = time.monotonic()
        trace: dict[str, Any] = {
            "input": text[:2000],
            "source": source,
            "origin": message.get("origin") or {},
        }
        contradictions: list[Contradiction] = []
        if self._llm.enabled and self._tools is not None and self._tools.enabled:
            pipeline = LlmStorePipeline(self._units, self._embedder, self._llm, self._tools, self._clock)
            found = pipeline.run(project, text, source, trace)
            contradictions = list(pipeline.contradictions)
        else:
            found = extract(text, self._clock())
        written: dict[str, Any] = {}
        with self._units() as uow:
            if not uow.graph.claim(key):
                return {"replayed": True}
            if isinstance(found, Extraction):
                trace["pipeline"] = trace.get("pipeline", "heuristic")
                trace["extraction"] = found.as_json()
                written = write_extraction(
                    uow.graph,
                    self._embedder,
                    project,
                    found,
                    source,
                    {"origin": message.get("origin") or {}} if message.get("origin") else None,
                )
            uow.commit()
        if written.get("nodes"):  # no model: the instructions are reconciled by their wording
            reconciler = Reconciler(self._units, self._embedder)
            trace["reconciliation"] = reconciler.heuristic(
                project, [n["id"] for n in written["nodes"] if n["type"] == "instruction"]
            )
            contradictions += reconciler.contradictions
        trace["written"] = written
        trace["timings"] = {
            **trace.get("timings", {}),
            "total_ms": round((time.monotonic() - started) * 1000),
        }
        with self._units() as uow:
            trace_id = uow.graph.add_trace(project, "store", trace, TRACE_DAYS)
            uow.commit()
        self._hand_over(project, [n["id"] for n in written.get("nodes", [])] + list(trace.get("stored", [])),
                        trace.get("reconciliation", []))
        for contradiction in contradictions:
            self._announce(contradiction)
        return {
            "replayed": False,
            "trace_id": trace_id,
            "pipeline": trace["pipeline"],
            "written": written,
            "stored": trace.get("stored", []),
            "contradictions": [c.id for c in contradictions],
        }

    def _hand_over(self, project: str, stored: Sequence[str], verdicts: Sequence[dict[str, Any]]) -> None:
        """The new live instructions of trusted text, to the instruction store (`on_instructions`),
        with the reconciliation's verdicts on them (`new`, `old_id`, `verdict`, `reason`)."""
        if self._on_instructions is None or not stored:
            return
        with self._units() as uow:
            nodes = [uow.graph.get_node(node_id) for node_id in dict.fromkeys(stored)]
        instructions = [n for n in nodes
                        if n is not None and n.node_type == "instruction" and n.live and n.trusted]
        if instructions:
            self._on_instructions(project, instructions, verdicts)

    def _announce(self, contradiction: Contradiction) -> None:
        if self._on_contradiction is None:
            return
        try:
            self._on_contradiction(contradiction)
        except Exception as exc:  # stored and listed: the announcement is a courtesy
            get_logger().warning("graph: contradiction announcement failed", extra={"error": str(exc)})
