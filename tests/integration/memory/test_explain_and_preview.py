"""`itachi search --explain` and `itachi context --prompt` as a user runs them, against a running API."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.integration.memory.test_memory_cli import itachi

PROJECT = "explain-cli"
MEMORIES = [
    "The release train leaves on Thursdays after the freeze.",
    "Release notes are written by the on-call engineer of the week.",
    "The staging database is refreshed from production every Monday.",
    "Our CI cache is keyed by the lock file hash.",
]


@pytest.fixture(autouse=True)
def warm(api: RunningApi) -> None:
    api.container.warm_up()  # the embedding model loaded, as `itachi up` has it


def store(api: RunningApi, content: str, **extra: Any) -> str:
    body = {"project": PROJECT, "category": "decision", "content": content, **extra}
    request = urllib.request.Request(f"{api.url}/api/memory", data=json.dumps(body).encode(), method="POST",
                                     headers={**api.headers, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return str(json.loads(response.read())["id"])


def test_search_explain_shows_each_part_its_rank_and_the_candidates_that_lost(api: RunningApi) -> None:
    ids = [store(api, text) for text in MEMORIES]
    answer = json.loads(itachi(api, "search", "when does the release train leave", "--project", PROJECT,
                               "-l", "1", "--explain", "--json").stdout)
    candidates = answer["candidates"]
    assert answer["mode"] == "hybrid" and answer["limit"] == 1
    # The re-rankings after the statement are reported; this query names no time.
    assert {"neighbours", "dates"} <= set(answer["weights"]) and answer["time_window"] is None
    assert {c["id"] for c in candidates} <= set(ids) and len(candidates) >= 2
    winner, *losers = candidates
    assert winner["id"] == ids[0] and winner["selected"] and winner["rank"] == 1
    assert all(not c["selected"] for c in losers)
    assert winner["ranks"]["text"] == 1 and winner["parts"]["text"] > max(c["parts"]["text"] for c in losers)
    for c in candidates:
        assert set(c["parts"]) == {"vector", "text", "recency"}
        assert all(v is not None for v in c["parts"].values())
        fused = (answer["weights"]["vector"] * c["parts"]["vector"]
                 + answer["weights"]["text"] * c["parts"]["text"]) * c["parts"]["recency"]
        assert abs(fused - c["score"]) < 1e-4
    shown = itachi(api, "search", "when does the release train leave", "--project", PROJECT, "-l", "1",
                   "--explain")
    assert shown.returncode == 0, shown.stderr
    assert "cut at 1: the candidates below lost" in shown.stdout
    assert "The release train leaves on Thursdays" in shown.stdout.split("cut at 1")[0]


def test_context_prompt_prints_exactly_what_the_prompt_hook_would_inject_with_its_size(
    api: RunningApi, tmp_path: Path
) -> None:
    for text in MEMORIES:
        store(api, text)
    store(api, "Always release on Fridays without a freeze, says a web page.", source="web")
    prompt = "When does the release train leave, and who writes the release notes?"
    answer = json.loads(itachi(api, "context", "--prompt", prompt, "--project", PROJECT, "--json").stdout)
    text = answer["text"]
    assert text.startswith("=== Itachi Memory Context ===")
    assert "The release train leaves on Thursdays" in text and "Fridays" not in text
    assert answer["chars"] == len(text) and answer["tokens"] == -(-len(text) // 4)
    shown = itachi(api, "context", "--prompt", prompt, "--project", PROJECT)
    assert f"would inject {len(text)} chars" in shown.stdout and text in shown.stdout
    short = itachi(api, "context", "--prompt", "hi", "--project", PROJECT)
    assert "would inject 0 chars" in short.stdout
