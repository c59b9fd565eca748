"""One OODA cycle: observe, orient (one LLM call, or the heuristic), decide, act.

The kill switch (`enabled`) is read again before each phase that changes anything, so turning
the brain off during a cycle (while its LLM call runs, say) stops it before it proposes. The
brain's own daily budget of LLM calls is counted here, on top of the LLM port's dollar budget:
either being spent leaves the heuristic ranking, which still proposes.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from chalicelib.brain.domain.proposals import PROPOSAL_TTL, Observation, Proposal
from chalicelib.brain.domain.ranking import (
    ORIENT_SCHEMA,
    ORIENT_SYSTEM,
    decide,
    heuristic_rank,
    llm_rank,
    orient_prompt,
)
from chalicelib.brain.services.ports import BrainUnits, NoChannel, ProposalChannel, QueueProbe
from chalicelib.kernel.logging import get_logger, log_failure
from chalicelib.llm.services.ports import LanguageModel

PURPOSE = "brain"
MAX_OBSERVATIONS = 20  # what the orient prompt carries, most severe first


@dataclass
class CycleReport:
    ran: bool
    reason: str = ""
    observations: int = 0
    ranking: str = ""  # llm | heuristic
    proposals: list[str] = field(default_factory=list)
    expired: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"ran": self.ran, "reason": self.reason, "observations": self.observations,
                "ranking": self.ranking, "proposals": self.proposals, "expired": self.expired,
                "seconds": round(self.seconds, 3)}


class BrainLoop:
    def __init__(self, units: BrainUnits, llm: LanguageModel, queues: QueueProbe,
                 channel: ProposalChannel | None = None, *,
                 clock: Callable[[], datetime] = lambda: datetime.now(UTC),
                 expire: Callable[[], int] | None = None) -> None:
        self._units, self._llm, self._queues = units, llm, queues
        self._channel = channel or NoChannel()
        self._clock = clock
        self._expire = expire

    def tick(self, *, force: bool = False) -> CycleReport:
        """The schedule's call (every minute): expire proposals, then run a cycle if one is due."""
        expired = self._expire() if self._expire else 0
        with self._units() as uow:
            state = uow.state.get()
        if not force and state.enabled and not state.due(self._clock()):
            return CycleReport(False, "not due", expired=expired)
        report = self.cycle()
        report.expired = expired
        return report

    def cycle(self) -> CycleReport:
        started = time.perf_counter()
        report = self._cycle()
        report.seconds = time.perf_counter() - started
        now = self._clock()
        if report.ran or report.reason != "off":
            with self._units() as uow:
                uow.state.record_cycle(now, report.to_json())
                uow.commit()
        get_logger().info("brain cycle", extra={"brain": report.to_json()})
        return report

    def _enabled(self) -> bool:
        with self._units() as uow:
            return uow.state.get().enabled

    def _cycle(self) -> CycleReport:
        if not self._enabled():
            return CycleReport(False, "off")
        now = self._clock()
        with self._units() as uow:
            observations = uow.observations.observe(now)
            covered = uow.proposals.covered_keys(now - PROPOSAL_TTL)
            state = uow.state.get()
        observations.extend(self._dlq_observations())
        fresh = sorted((o for o in observations if o.key not in covered),
                       key=lambda o: o.severity)[:MAX_OBSERVATIONS]
        report = CycleReport(True, observations=len(observations))
        if not fresh:
            report.ranking = "none"
            return report
        ranked = self._orient(fresh, state.budget_left(now.date()) > 0, now)
        report.ranking = "llm" if ranked is not None else "heuristic"
        if ranked is None:
            ranked = heuristic_rank(fresh, now)
        if not self._enabled():  # the kill switch was thrown while we were thinking
            return CycleReport(False, "switched off mid-cycle", observations=len(observations),
                               ranking=report.ranking)
        chosen = decide(ranked, covered_keys=covered, limit=state.max_proposals)
        for new in chosen:
            proposal = self._store(new)
            if proposal is not None:
                report.proposals.append(proposal.id)
        return report

    def _orient(self, fresh: list[Observation], within_budget: bool, now: datetime) -> Any:
        if not (self._llm.enabled and within_budget):
            return None
        with self._units() as uow:  # counted before the call: a crash never spends uncounted
            uow.state.count_llm_call(now.date())
            uow.commit()
        answer = self._llm.complete_json(PURPOSE, ORIENT_SYSTEM, orient_prompt(fresh), ORIENT_SCHEMA,
                                         max_tokens=800)
        return llm_rank(fresh, answer, now)

    def _store(self, new: Any) -> Proposal | None:
        with self._units() as uow:
            if not uow.state.get(for_update=True).enabled:
                return None
            proposal = uow.proposals.insert(str(uuid.uuid4()), new)
            uow.commit()
        if proposal is None:
            return None
        try:
            where = self._channel.post(proposal)
        except Exception as exc:  # the proposal stands; `/brain` and `itachi brain proposals` list it
            log_failure("brain proposal not sent", exc)
            return proposal
        if where is not None:
            with self._units() as uow:
                uow.proposals.update(proposal.id, where_status=("pending",), telegram_chat_id=where[0],
                                     telegram_message_id=where[1])
                uow.commit()
        return proposal

    def _dlq_observations(self) -> list[Observation]:
        try:
            depths = self._queues.dlq_depths()
        except Exception as exc:  # the queues may be unreachable; the other observations stand
            log_failure("brain: DLQ depths unavailable", exc)
            return []
        return [Observation("dlq", f"dlq:{key}", None, f"{count} message(s) wait in the {key} DLQ",
                            2, {"kind": "requeue_dlq", "queue": key}, {"count": count})
                for key, count in sorted(depths.items()) if count > 0]

