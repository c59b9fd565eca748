"""LoCoMo for retrieval: turns as memories, questions with normalised evidence, and the metrics.

Evidence ids in the data are not uniform: "D8:6; D9:17" (two in one string), "D:11:26"
(stray colon), "D30:05" (leading zero), "D" (nothing), and ids of turns that do not exist.
`normalise_evidence` turns each into canonical "D<session>:<turn>" ids of real turns and
drops the rest; a question left with no evidence is not scored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
_SESSION = re.compile(r"session_(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    created_at: datetime


@dataclass(frozen=True)
class Question:
    qid: str
    text: str
    category: int
    evidence: tuple[str, ...]
    audited: tuple[str, ...]  # the audit's corrected evidence, or the cited one when not audited
    dropped: int = 0  # evidence ids that named no turn


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn]
    questions: list[Question] = field(default_factory=list)


def turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shared an image: {turn['blip_caption']}]"
    return text


def normalise_evidence(raw: list[str], known: set[str]) -> tuple[tuple[str, ...], int]:
    """Canonical ids of existing turns (in order, unique) and how many ids were dropped."""
    found: list[str] = []
    dropped = 0
    for entry in raw:
        for part in re.split(r"[;,\s]+", str(entry).strip()):
            if not part:
                continue
            match = _EVIDENCE.fullmatch(part)
            ident = f"D{match.group(1)}:{match.group(2)}" if match else None
            if ident in known:
                if ident not in found:
                    found.append(ident)
            else:
                dropped += 1
    return tuple(found), dropped


def load(data_dir: Path) -> list[Conversation]:
    samples = json.loads((data_dir / "locomo10.json").read_text())
    audit = {a["question_id"]: a for a in json.loads((data_dir / "locomo10_audit_errors.json").read_text())}
    conversations = []
    for n, sample in enumerate(samples):
        conv = sample["conversation"]
        turns = []
        for key, items in conv.items():
            match = _SESSION.fullmatch(key)
            if not match or not items:
                continue
            start = datetime.strptime(conv[f"{key}_date_time"], "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
            for i, t in enumerate(items):  # one second apart keeps the order within a session
                turns.append(Turn(t["dia_id"], int(match.group(1)), t["speaker"], turn_text(t),
                                  start + timedelta(seconds=i)))
        known = {t.dia_id for t in turns}
        questions = []
        for i, qa in enumerate(sample["qa"]):
            qid = f"locomo_{n}_qa{i}"
            evidence, dropped = normalise_evidence(qa.get("evidence", []), known)
            audited = evidence
            if qid in audit:
                audited, _ = normalise_evidence(audit[qid].get("correct_evidence") or [], known)
            questions.append(Question(qid, qa["question"], int(qa["category"]), evidence, audited, dropped))
        conversations.append(Conversation(sample["sample_id"], turns, questions))
    return conversations


def session_of(dia_id: str) -> str:
    return dia_id.split(":", 1)[0]


def score_question(ranked: list[set[str]], evidence: tuple[str, ...]) -> dict[str, float]:
    """Metrics of one ranked result list; ranked[i] is the set of turn ids behind result i."""
    wanted = set(evidence)
    out: dict[str, float] = {}
    for k in (5, 10, 20):
        got = set().union(*ranked[:k]) if ranked[:k] else set()
        out[f"R@{k}"] = len(got & wanted) / len(wanted)
    for k in (5, 10):
        sessions = {session_of(d) for ids in ranked[:k] for d in ids}
        out[f"S@{k}"] = float({session_of(d) for d in wanted} <= sessions)
    out["MRR"] = next((1.0 / (i + 1) for i, ids in enumerate(ranked) if ids & wanted), 0.0)
    return out
