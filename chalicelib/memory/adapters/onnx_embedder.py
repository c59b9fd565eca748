"""all-MiniLM-L6-v2 on ONNX Runtime: the same vectors as the torch path, without torch.

onnxruntime, tokenizers and numpy are imported on first use (`import app` stays cheap). The
session and tokenizer are loaded once per process from the pinned export (`onnx_model.py`).
Texts are encoded in batches of similar length (less padding), truncated to the model's 256
tokens, mean-pooled over the attention mask and normalised: what sentence-transformers does
for this model, so vectors match the torch path to about 1e-6 and the two share one cache.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chalicelib.kernel.lazy import Lazy
from chalicelib.memory.adapters.model_embedder import DEFAULT_DIMENSION, ModelEmbedder

BATCH_SIZE = 32

_runtimes: dict[tuple[str | None, int], Lazy[tuple[Any, Any, Any]]] = {}
_runtimes_lock = threading.Lock()


def _load(folder: str | None, threads: int) -> tuple[Any, Any, Any]:
    import onnxruntime
    from tokenizers import Tokenizer

    from chalicelib.memory.adapters.onnx_model import MAX_TOKENS, MODEL_FILE, TOKENIZER_FILE, verified

    path = verified(Path(folder) if folder else None)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads  # 0: one per core
    options.inter_op_num_threads = 1
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = onnxruntime.InferenceSession(str(path / MODEL_FILE), options,
                                           providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(path / TOKENIZER_FILE))
    counter = Tokenizer.from_file(str(path / TOKENIZER_FILE))  # the same, neither truncating nor padding
    counter.no_truncation()
    counter.no_padding()
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return session, tokenizer, counter


def load_runtime(folder: str | None = None, threads: int = 1) -> tuple[Any, Any, Any]:
    """(session, tokenizer for encoding, tokenizer for counting), loaded once per process."""
    with _runtimes_lock:
        lazy = _runtimes.setdefault((folder, threads), Lazy(lambda: _load(folder, threads)))
    return lazy.get()


def encode(session: Any, tokenizer: Any, texts: Sequence[str]) -> Any:
    """Unit vectors (a float32 array, one row per text, in input order)."""
    import numpy as np

    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), DEFAULT_DIMENSION), dtype=np.float32)
    for start in range(0, len(order), BATCH_SIZE):
        chunk = order[start:start + BATCH_SIZE]
        encodings = tokenizer.encode_batch([texts[i] for i in chunk])
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                    "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        out[chunk] = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
    return out


class OnnxEmbedder(ModelEmbedder):
    """Embeds with the exported MiniLM on ONNX Runtime (CPU)."""

    default_threads = 1

    def _encode(self, texts: list[str]) -> Any:
        session, tokenizer, _ = load_runtime(self._model_dir, self._threads)
        return encode(session, tokenizer, texts)

    def _offsets(self, text: str) -> Sequence[tuple[int, int]]:
        _, _, counter = load_runtime(self._model_dir, self._threads)
        offsets: Sequence[tuple[int, int]] = counter.encode(text, add_special_tokens=False).offsets
        return offsets
