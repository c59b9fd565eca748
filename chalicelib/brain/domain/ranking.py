"""Orient and decide: rank observations (by the LLM's answer or by severity), keep the new ones.

The LLM is asked once per cycle to order the observations and word each proposal; without an
answer (no key, over budget, a failure) the heuristic order is severity, then the number of
occurrences. Deciding drops what an open or recent proposal already covers and what an existing
task already handles, and keeps at most `max_proposals`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from chalicelib.brain.domain.proposals import NewProposal, Observation, proposal_from

ORIENT_SYSTEM = (
    "You are the operations brain of a coding-agent orchestrator. Rank the observations by urgency "
    "and for each worth acting on give a short title, a one-paragraph rationale and a priority from 1 "
    "(most urgent) to 5. Use only the observation indexes given; omit those not worth a proposal.")
ORIENT_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["ranked"],
    "properties": {"ranked": {"type": "array", "items": {
        "type": "object", "additionalProperties": False,
        "required": ["index", "title", "rationale", "priority"],
        "properties": {"index": {"type": "integer"}, "title": {"type": "string"},
                       "rationale": {"type": "string"}, "priority": {"type": "integer"}}}}},
}


def orient_prompt(observations: Sequence[Observation]) -> str:
    lines = [f"[{i}] ({o.kind}, severity {o.severity}{f', project {o.project}' if o.project else ''}) "
             f"{o.summary}" for i, o in enumerate(observations)]
    return "Observations:\n" + "\n".join(lines)


def heuristic_rank(observations: Sequence[Observation], now: datetime) -> list[NewProposal]:
    ordered = sorted(observations, key=lambda o: (o.severity, -int(o.facts.get("count", 1)), o.key))
    return [proposal_from(o, now) for o in ordered]


def llm_rank(observations: Sequence[Observation], answer: dict[str, Any] | None,
             now: datetime) -> list[NewProposal] | None:
    """The LLM's order and wording, or None when its answer cannot be used."""
    if not answer or not isinstance(answer.get("ranked"), list):
        return None
    out: list[NewProposal] = []
    seen: set[int] = set()
    for item in answer["ranked"]:
        index = item.get("index") if isinstance(item, dict) else None
        if not isinstance(index, int) or not 0 <= index < len(observations) or index in seen:
            continue
        seen.add(index)
        priority = item.get("priority")
        out.append(proposal_from(observations[index], now, title=str(item.get("title") or "") or None,
                                 rationale=str(item.get("rationale") or "") or None,
                                 priority=priority if isinstance(priority, int) else None))
    return out if out or not observations else None


def decide(ranked: Sequence[NewProposal], *, covered_keys: Collection[str], limit: int) -> list[NewProposal]:
    """The first `limit` proposals whose key no open or recent proposal (or task) covers."""
    chosen: list[NewProposal] = []
    keys = set(covered_keys)
    for proposal in ranked:
        if proposal.dedup_key in keys:
            continue
        keys.add(proposal.dedup_key)
        chosen.append(proposal)
        if len(chosen) >= limit:
            break
    return chosen
