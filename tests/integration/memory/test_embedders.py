"""Embedders: the OpenAI adapter over the real SDK against a fake server, the cache, the local model."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import pytest

from chalicelib.kernel.database import Database
from chalicelib.kernel.errors import ConfigurationError
from chalicelib.memory.adapters import onnx_model
from chalicelib.memory.adapters.cached_embedder import CachedEmbedder
from chalicelib.memory.adapters.embedders import build_embedder, local_embedder
from chalicelib.memory.adapters.local_embedder import LocalEmbedder
from chalicelib.memory.adapters.onnx_embedder import OnnxEmbedder
from chalicelib.memory.adapters.openai_embedder import BATCH_SIZE, OpenAIEmbedder
from chalicelib.memory.services.ports import EmbeddingFailed
from tests.fakes.fake_openai import EMBEDDINGS_PATH, FakeOpenAI
from tests.fakes.memory_embedders import SlowEmbedder, WordHashEmbedder
from tests.support.local_stack import settings_for_test


def test_openai_embedder_batches_asks_for_the_dimension_and_keeps_order() -> None:
    with FakeOpenAI() as fake:
        embedder = OpenAIEmbedder(api_key="sk-test", base_url=fake.base_url, dimension=256)
        texts = [f"text number {i}" for i in range(BATCH_SIZE + 5)] + [""]
        vectors = embedder.embed(texts)
        requests = fake.requests_to(EMBEDDINGS_PATH)
    assert len(vectors) == len(texts) and all(len(v) == 256 for v in vectors)
    assert [len(r["input"]) for r in requests] == [BATCH_SIZE, 6]
    assert all(r["dimensions"] == 256 and r["model"] == "text-embedding-3-small" for r in requests)
    assert requests[1]["input"][-1] == " "  # the API rejects empty input
    assert math.isclose(sum(x * x for x in vectors[0]), 1.0, rel_tol=1e-4)
    assert vectors[3] != vectors[4]


def test_openai_embedder_retries_a_rate_limit_then_succeeds() -> None:
    with FakeOpenAI() as fake:
        fake.script_embeddings_error(429, retry_after=0.05)
        vectors = OpenAIEmbedder(api_key="sk-test", base_url=fake.base_url).embed(["hello"])
        assert len(fake.requests_to(EMBEDDINGS_PATH)) == 2
    assert len(vectors[0]) == 1536


def test_openai_embedder_reports_a_persistent_failure() -> None:
    with FakeOpenAI() as fake:
        for _ in range(3):
            fake.script_embeddings_error(500)
        with pytest.raises(EmbeddingFailed):
            OpenAIEmbedder(api_key="sk-test", base_url=fake.base_url, max_retries=1).embed(["x"])


def test_settings_choose_openai_with_a_key_and_its_base_url(tmp_path: Path, database_url: str) -> None:
    base = settings_for_test(tmp_path, database_url, None)
    with FakeOpenAI() as fake:
        settings = base.replace(embedding_provider="openai", openai_api_key="sk-test",
                                       openai_base_url=fake.base_url, embedding_dim=1536,
                                       embedding_model="text-embedding-3-small")
        db = Database(database_url)
        try:
            embedder = build_embedder(settings, db)
            assert embedder.model == "text-embedding-3-small" and embedder.dimension == 1536
            assert isinstance(embedder.inner, OpenAIEmbedder)
        finally:
            db.close()
    with pytest.raises(ConfigurationError):
        build_embedder(settings.replace(openai_api_key=""), Database(database_url))
    with pytest.raises(ConfigurationError):
        build_embedder(settings.replace(embedding_provider="other"), Database(database_url))


def test_the_cache_serves_repeats_from_the_table_across_processes(database_url: str) -> None:
    db = Database(database_url)
    try:
        inner = WordHashEmbedder()
        first = CachedEmbedder(inner, db).embed(["alpha", "beta", "alpha"])
        fresh_process = CachedEmbedder(inner, db)  # a new LRU: only the table remembers
        again = fresh_process.embed(["beta", "gamma", "alpha"])
        with db.connection() as conn:
            cached = conn.execute("SELECT count(*) AS n FROM embedding_cache").fetchone()
    finally:
        db.close()
    assert inner.calls == [["alpha", "beta"], ["gamma"]]
    assert again[0] == pytest.approx(first[1], abs=1e-6) and again[2] == pytest.approx(first[0], abs=1e-6)
    assert cached is not None and cached["n"] == 3


def test_two_callers_asking_for_the_same_text_at_once_embed_it_once(database_url: str) -> None:
    db = Database(database_url)
    inner = SlowEmbedder(0.3)
    cache = CachedEmbedder(inner, db)
    results: list[list[list[float]]] = []
    try:
        threads = [threading.Thread(target=lambda: results.append(cache.embed(["same prompt"])))
                   for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        db.close()
    assert inner.calls == [["same prompt"]]
    assert results[0] == results[1]


def test_the_local_model_gives_unit_vectors_that_know_paraphrases() -> None:
    embedder = LocalEmbedder()
    a, b, c = embedder.embed(["The cat sits on the mat.", "A cat is sitting on a mat.", "Quarterly taxes"])
    cosine = lambda x, y: sum(p * q for p, q in zip(x, y, strict=True))  # noqa: E731
    assert len(a) == 384 and math.isclose(cosine(a, a), 1.0, rel_tol=1e-4)
    assert cosine(a, b) > 0.8 > cosine(a, c)
    assert embedder.embed([]) == []


def test_the_onnx_runtime_path_gives_the_torch_path_s_vectors() -> None:
    texts = ["The cat sits on the mat.", "Deploy the billing service on 3 May after the migration.",
             "x", "a longer text that goes past the model's window " * 60]
    onnx_vectors = OnnxEmbedder().embed(texts)
    torch_vectors = LocalEmbedder().embed(texts)
    for a, b in zip(onnx_vectors, torch_vectors, strict=True):
        assert len(a) == 384 and math.isclose(sum(x * x for x in a), 1.0, rel_tol=1e-4)
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-4
    assert OnnxEmbedder().embed([]) == []


def test_local_means_onnx_runtime_once_its_export_is_installed_and_torch_can_be_asked_for() -> None:
    assert (onnx_model.model_dir() / onnx_model.MODEL_FILE).is_file(), "make installs the export"
    assert isinstance(local_embedder("local"), OnnxEmbedder)
    assert isinstance(local_embedder("torch"), LocalEmbedder)
    with pytest.raises(ConfigurationError, match="expected local, onnx or torch"):
        local_embedder("tensorflow")


def test_an_onnx_model_file_that_does_not_match_its_pinned_hash_is_refused(tmp_path: Path) -> None:
    folder = onnx_model.verified()
    for name in (onnx_model.MODEL_FILE, onnx_model.TOKENIZER_FILE):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    assert onnx_model.verified(tmp_path) == tmp_path
    with (tmp_path / onnx_model.MODEL_FILE).open("ab") as handle:
        handle.write(b"\0")
    with pytest.raises(ValueError, match="pinned SHA-256"):
        onnx_model.verified(tmp_path)
    with pytest.raises(EmbeddingFailed):
        OnnxEmbedder(model_dir=str(tmp_path)).embed(["refused"])
