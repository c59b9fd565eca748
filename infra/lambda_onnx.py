"""The local embedder in the Lambda zip: ONNX Runtime, numpy, tokenizers and the pinned model file.

A stage whose `ITACHI_EMBEDDING_PROVIDER` is `onnx` (or `python -m infra.package --embedding onnx`)
embeds inside its Lambdas, with no OpenAI key. The runtime comes from the wheels pinned in
requirements-lambda-onnx.txt, which `make` downloads into `.venv/lambda-wheels/onnx/` (the
virtualenv's own onnxruntime and numpy need a newer glibc than the python3.11 runtime's 2.26), so
the build stays offline. The model and tokenizer are the virtualenv's export, checked against
their pinned SHA-256 (`onnx_model.verified`), copied to `models/<name>/` at the zip's root, where
`onnx_model.model_dir()` finds them under LAMBDA_TASK_ROOT: local and AWS vectors are the same.
Parts of the wheels no embedding reaches are left out (`SKIPPED`).
"""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from chalicelib.memory.adapters.onnx_model import MODEL_FILE, PACKAGED_DIR, TOKENIZER_FILE, verified

ONNX_PROVIDERS = ("onnx", "local")  # `local` in a Lambda means the ONNX Runtime model too
WHEELS_DIR = Path(sys.prefix) / "lambda-wheels" / "onnx"
# Tooling inside the wheels that embedding never imports: the ONNX Runtime's model converters,
# quantisation and transformer optimisers; numpy's Fortran wrapper generator, build helpers,
# C headers and PyInstaller hooks.
SKIPPED = ("onnxruntime/tools/", "onnxruntime/transformers/", "onnxruntime/quantization/",
           "numpy/f2py/", "numpy/distutils/", "numpy/core/include/", "numpy/_pyinstaller/")


class OnnxPackageError(RuntimeError):
    """The ONNX runtime cannot be vendored from this environment."""


def pinned(requirements: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for raw in requirements.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            versions = [s.version for s in req.specifier if s.operator == "=="]
            if len(versions) != 1:
                raise OnnxPackageError(f"{requirements.name}: pin {req.name} with ==")
            pins[canonicalize_name(req.name)] = versions[0]
    return pins


def wheels_for(requirements: Path, wheels_dir: Path = WHEELS_DIR) -> list[Path]:
    """The downloaded wheel of each pin; OnnxPackageError naming what is missing."""
    found: dict[tuple[str, str], Path] = {}
    for wheel in sorted(wheels_dir.glob("*.whl")) if wheels_dir.is_dir() else []:
        parsed = parse_wheel_filename(wheel.name)
        found[(canonicalize_name(parsed[0]), str(parsed[1]))] = wheel
    out = []
    for name, version in pinned(requirements).items():
        if (name, version) not in found:
            raise OnnxPackageError(f"{name}=={version} is not in {wheels_dir}: run `make` "
                                   f"(it downloads {requirements.name})")
        out.append(found[(name, version)])
    return out


def unpack(wheel: Path, target: Path) -> int:
    """Extract a wheel into `target`, without the parts in SKIPPED; bytes written."""
    written = 0
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if info.is_dir() or info.filename.startswith(SKIPPED):
                continue
            dest = target / info.filename
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(zf.read(info))
            written += info.file_size
    return written


def vendor_onnx(requirements: Path, vendor: Path, *, wheels_dir: Path = WHEELS_DIR,
                model_folder: Path | None = None) -> dict[str, int]:
    """Unpack the runtime's wheels and copy the verified model into `vendor`; bytes per part."""
    from infra.package import check_wheel_tags

    sizes = {}
    for wheel in wheels_for(requirements, wheels_dir):
        check_wheel_tags(wheel.name, parse_wheel_filename(wheel.name)[3])
        sizes[wheel.name.split("-", 1)[0]] = unpack(wheel, vendor)
    try:
        source = verified(model_folder)
    except ValueError as exc:
        raise OnnxPackageError(str(exc)) from None
    dest = vendor / PACKAGED_DIR
    dest.mkdir(parents=True, exist_ok=True)
    for name in (MODEL_FILE, TOKENIZER_FILE):
        shutil.copyfile(source / name, dest / name)
    sizes["model"] = sum((dest / n).stat().st_size for n in (MODEL_FILE, TOKENIZER_FILE))
    return sizes
