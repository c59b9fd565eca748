"""The Lambda zip with the ONNX Runtime embedder: under the 250 MB limit, and embedding as locally.

One offline `python -m infra.package --embedding onnx` run feeds every test (about 2 minutes on a
busy box). The zip is unpacked and run by a fresh `python -I -S` with nothing but the package
on its path and no network (`unshare -n` where the machine allows it), the way /var/task is.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chalicelib.kernel.queue_table import QUEUES
from chalicelib.kernel.schedule_table import SCHEDULES
from chalicelib.memory.adapters.onnx_embedder import OnnxEmbedder
from chalicelib.memory.adapters.onnx_model import MODEL_FILE, MODEL_SHA256, PACKAGED_DIR, TOKENIZER_SHA256
from infra.package import LAMBDA_LIMIT_BYTES
from tests.conftest import REPO_ROOT
from tests.support.lambda_package import offline_prefix

PROBE = REPO_ROOT / "infra" / "lambda_probe.py"
TEXTS = ["why did we pick pgvector for the memory store", "Always run migrations before the tests",
         "déjà vu: naïve café résumé ünïcödé 数据库 🚀", "x " * 400]


@pytest.fixture(scope="module")
def built(lambda_package: Callable[[str | None], Path]) -> Path:
    return lambda_package("onnx")


@pytest.fixture(scope="module")
def code_dir(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("var-task")
    with zipfile.ZipFile(built / "lambda.zip") as zf:
        zf.extractall(root)
    return root


def api_environment(built: Path) -> dict[str, Any]:
    template = json.loads((built / "template.json").read_text())
    api = [r for r in template["Resources"].values()
           if r["Type"] == "AWS::Serverless::Function" and r["Properties"]["Handler"] == "app.app"]
    return api[0]["Properties"]["Environment"]["Variables"]  # type: ignore[no-any-return]


def run_in_package(code_dir: Path, built: Path, args: list[str], extra: dict[str, str] | None = None) -> str:
    """A fresh interpreter with only the stdlib and the package importable, the API's settings."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "AWS_DEFAULT_REGION": "us-east-1", "LAMBDA_TASK_ROOT": str(code_dir),
           "ITACHI_HOME": str(code_dir.parent / "home"),
           "ITACHI_EMBEDDING_PROVIDER": api_environment(built)["ITACHI_EMBEDDING_PROVIDER"], **(extra or {})}
    result = subprocess.run([*offline_prefix(), sys.executable, "-I", "-S", *args], env=env,
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_the_onnx_package_stays_under_the_lambda_limit_of_250_mb_unzipped(built: Path) -> None:
    with zipfile.ZipFile(built / "lambda.zip") as zf:
        infos = zf.infolist()
        unzipped = sum(i.file_size for i in infos)
        names = {i.filename for i in infos}
        model = zf.read(f"{PACKAGED_DIR}/{MODEL_FILE}")
        tokenizer = zf.read(f"{PACKAGED_DIR}/tokenizer.json")
    manifest = json.loads((built / "manifest.json").read_text())
    assert unzipped == manifest["code"]["unzipped_bytes"]
    assert unzipped < LAMBDA_LIMIT_BYTES == 250 * 1024 * 1024
    assert manifest["embedding"] == "onnx"
    # the same model file as the local export, pinned by hash
    assert hashlib.sha256(model).hexdigest() == MODEL_SHA256
    assert hashlib.sha256(tokenizer).hexdigest() == TOKENIZER_SHA256
    assert "onnxruntime/capi/onnxruntime_pybind11_state.so" in names or any(
        n.startswith("onnxruntime/capi/onnxruntime_pybind11_state") for n in names)
    tops = {n.split("/", 1)[0] for n in names}
    assert not tops & {"torch", "huggingface_hub", "hf_xet", "transformers", "sentence_transformers"}
    assert not any(n.startswith(("onnxruntime/transformers/", "numpy/f2py/")) for n in names)
    assert not any("/tests/" in n for n in names if not n.startswith("chalicelib/"))


def test_every_function_of_the_onnx_stack_is_told_to_embed_locally(built: Path) -> None:
    template = json.loads((built / "template.json").read_text())
    functions = [r for r in template["Resources"].values() if r["Type"] == "AWS::Serverless::Function"]
    assert len(functions) > 10
    providers = {r["Properties"]["Environment"]["Variables"].get("ITACHI_EMBEDDING_PROVIDER")
                 for r in functions}
    assert providers == {"onnx"}


def test_the_unzipped_package_embeds_offline_the_same_vectors_as_the_local_embedder(
        built: Path, code_dir: Path) -> None:
    files_before = {p: p.stat().st_size for p in code_dir.rglob("*")}
    out = json.loads(run_in_package(code_dir, built, [str(PROBE), str(code_dir), "app", *TEXTS]))
    assert out["provider"] == "onnx" and out["model"] == "all-MiniLM-L6-v2" and out["dimension"] == 384
    # the Lambda-compatible runtime from inside the package, not this virtualenv's
    assert out["onnxruntime"][1].startswith(str(code_dir)) and out["numpy"][1].startswith(str(code_dir))
    local = OnnxEmbedder().embed(TEXTS)
    assert len(out["vectors"]) == len(local) == len(TEXTS)
    worst = max(abs(a - b) for va, vb in zip(out["vectors"], local, strict=True)
                for a, b in zip(va, vb, strict=True))
    assert worst < 1e-5, worst
    # /var/task is read-only: loading and embedding wrote nothing next to the code
    assert {p: p.stat().st_size for p in code_dir.rglob("*")} == files_before


def test_every_handler_module_imports_from_the_unzipped_onnx_package(built: Path, code_dir: Path) -> None:
    targets = sorted({q.consumer for q in QUEUES if q.consumer} | {s.handler for s in SCHEDULES})
    modules = ["app", "functions.lambda_entry", "functions.migrate_on_deploy",
               *sorted({t.partition(":")[0] for t in targets})]
    program = ("import importlib, sys; sys.path.insert(0, sys.argv[1]); "
               "[importlib.import_module(m) for m in sys.argv[2:]]; "
               "print(sum(1 for m in sys.argv[2:] if m in sys.modules))")
    out = run_in_package(code_dir, built, ["-c", program, str(code_dir), *modules],
                         {"ITACHI_HANDLER": targets[0]})
    assert int(out) == len(modules)
    assert os.path.isfile(code_dir / "functions" / "lambda_entry.py")  # our own code keeps its sources
