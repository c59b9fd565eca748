"""What the Lambda package leaves out, and how a stage chooses where its embeddings come from."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from infra.lambda_onnx import OnnxPackageError, pinned, wheels_for
from infra.lambda_slim import AWS_SERVICES, compile_sourceless, slim
from infra.package import PackageError, embedding_of

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_every_aws_service_the_functions_call_keeps_its_botocore_model() -> None:
    called = set()
    code = [REPO_ROOT / "app.py", *(REPO_ROOT / "chalicelib").rglob("*.py"),
            *(REPO_ROOT / "functions").rglob("*.py")]
    for path in code:
        text = path.read_text()
        called |= set(re.findall(r"""(?:\.client|lazy_aws_client)\(\s*["']([a-z0-9-]+)["']""", text))
        if "parameters.get_secret" in text or "get_secrets_provider" in text or "SecretsProvider" in text:
            called.add("secretsmanager")
    assert called, "no boto3 client found: the pattern no longer matches the code"
    assert {"sqs", "secretsmanager"} <= called
    assert called <= set(AWS_SERVICES), sorted(called - set(AWS_SERVICES))


def write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_slimming_drops_unused_service_models_tests_and_stubs_but_not_our_code(tmp_path: Path) -> None:
    vendor = tmp_path / "vendor"
    for service in ("sqs", "ec2", "sagemaker"):
        write(vendor / "botocore" / "data" / service / "2020-01-01" / "service-2.json.gz", "{}")
    write(vendor / "botocore" / "data" / "endpoints.json", "{}")
    write(vendor / "lib" / "__init__.py")
    write(vendor / "lib" / "tests" / "test_lib.py")
    write(vendor / "lib" / "__init__.pyi", "x: int\n")
    write(vendor / "functions" / "tests" / "keep.py")
    freed = slim(vendor)
    assert freed["botocore_models"] > 0 and freed["tests_and_stubs"] > 0
    assert sorted(p.name for p in (vendor / "botocore" / "data").iterdir()) == ["endpoints.json", "sqs"]
    assert (vendor / "lib" / "__init__.py").is_file()
    assert not (vendor / "lib" / "tests").exists() and not (vendor / "lib" / "__init__.pyi").exists()
    assert (vendor / "functions" / "tests" / "keep.py").is_file()


def test_a_sourceless_module_imports_and_its_traceback_still_names_the_line(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "from pkg.mod import boom\n")
    write(tmp_path / "pkg" / "mod.py", "def boom():\n    x = 1\n    raise ValueError('boom ' + str(x))\n")
    write(tmp_path / "single.py", "VALUE = 42\n")
    assert compile_sourceless(tmp_path, ["pkg", "single.py"]) != 0
    assert not list(tmp_path.rglob("*.py")) and (tmp_path / "pkg" / "mod.pyc").is_file()
    program = ("import sys; sys.path.insert(0, sys.argv[1]); import single, pkg; print(single.VALUE); "
               "pkg.boom()")
    result = subprocess.run([sys.executable, "-I", "-S", "-c", program, str(tmp_path)], capture_output=True,
                            text=True, check=False)
    assert result.stdout.strip() == "42"
    assert "mod.py\", line 3, in boom" in result.stderr and "ValueError: boom 1" in result.stderr


def test_a_stage_embeds_with_openai_unless_it_or_the_build_asks_for_the_onnx_model() -> None:
    assert embedding_of("prod") == "openai"
    assert embedding_of("prod", "onnx") == "onnx"
    assert embedding_of("dev", "local") == "onnx"  # a Lambda's local model is the ONNX one
    with pytest.raises(PackageError, match="torch"):
        embedding_of("prod", "torch")


def test_the_onnx_wheels_are_pinned_and_missing_ones_name_the_make_step(tmp_path: Path) -> None:
    pins = pinned(REPO_ROOT / "requirements-lambda-onnx.txt")
    assert set(pins) == {"onnxruntime", "numpy", "tokenizers"}
    with pytest.raises(OnnxPackageError, match="run `make`"):
        wheels_for(REPO_ROOT / "requirements-lambda-onnx.txt", tmp_path)
