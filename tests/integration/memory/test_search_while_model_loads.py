"""`itachi up` prints its ready line before the local embedding model is loaded: searches made
meanwhile answer from full text at once, and hybrid once the model is there."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from chalicelib.memory.adapters.cached_embedder import CachedEmbedder
from chalicelib.memory.adapters.embedders import warm_up_in_background
from chalicelib.memory.adapters.onnx_embedder import OnnxEmbedder
from chalicelib.memory.domain.memory_model import MemoryDraft
from tests.integration.memory.conftest import call, container_with, serving


class GatedOnnxEmbedder(OnnxEmbedder):
    """The real ONNX Runtime embedder whose warm-up (the model load `itachi up` starts) waits for a gate."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self._gate = gate

    def warm_up(self) -> None:
        assert self._gate.wait(120), "the test never opened the gate"
        super().warm_up()


def test_a_search_while_the_model_loads_answers_from_full_text_and_hybrid_once_it_is_loaded(
    tmp_path: Path, database_url: str
) -> None:
    gate = threading.Event()
    container = container_with(tmp_path, database_url, OnnxEmbedder())
    container.embedder = CachedEmbedder(GatedOnnxEmbedder(gate), container.db)  # as `itachi up` wraps it
    try:
        container.memory.remember(MemoryDraft(project="w", category="fact",  # embedded: no warm-up needed
                                              content="The nightly backup runs at two in the morning."))
        warm_up_in_background(container.embedder)  # what `itachi up` does before its ready line
        with serving(container) as api:
            status, answer = call(api, "GET", "/api/memory/search", query="when does the nightly backup run",
                                  project="w")
            assert status == 200, answer
            assert answer["mode"] == "text" and answer["degraded"] == "embedding_loading"
            found = [r["content"] for r in answer["results"]]
            assert found == ["The nightly backup runs at two in the morning."]

            gate.set()
            deadline = time.monotonic() + 120
            while container.embedder.loading and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not container.embedder.loading
            status, answer = call(api, "GET", "/api/memory/search", query="when does the nightly backup run",
                                  project="w")
        assert status == 200 and answer["mode"] == "hybrid" and "degraded" not in answer, answer
        assert answer["results"][0]["content"] == "The nightly backup runs at two in the morning."
    finally:
        gate.set()
        container.close()
