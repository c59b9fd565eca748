"""The LoCoMo benchmark's evidence normalisation and metrics (bench/locomo_data.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "bench" / "locomo_data.py"
_spec = importlib.util.spec_from_file_location("locomo_data", _PATH)
assert _spec is not None and _spec.loader is not None
locomo_data = importlib.util.module_from_spec(_spec)
sys.modules["locomo_data"] = locomo_data
_spec.loader.exec_module(locomo_data)

KNOWN = {"D8:6", "D9:17", "D11:26", "D30:5", "D1:3"}


@pytest.mark.parametrize(("raw", "expected", "dropped"), [
    (["D8:6; D9:17"], ("D8:6", "D9:17"), 0),
    (["D:11:26"], ("D11:26",), 0),
    (["D30:05"], ("D30:5",), 0),
    (["D1:3", "D", "D99:1"], ("D1:3",), 2),
    (["D9:17 D8:6", "D8:6"], ("D9:17", "D8:6"), 0),
])
def test_evidence_ids_are_normalised_to_existing_turns(raw: list[str], expected: tuple[str, ...],
                                                       dropped: int) -> None:
    assert locomo_data.normalise_evidence(raw, KNOWN) == (expected, dropped)


def test_metrics_count_turns_sessions_and_the_first_hit() -> None:
    ranked = [{"D1:1"}, {"D2:5", "D2:6"}, {"D3:1"}]
    scores = locomo_data.score_question(ranked, ("D2:6", "D4:1"))
    assert scores["R@5"] == 0.5 and scores["MRR"] == 0.5
    assert scores["S@5"] == 0.0
    assert locomo_data.score_question(ranked, ("D2:5", "D3:1"))["S@5"] == 1.0
