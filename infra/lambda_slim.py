"""What the vendored dependencies carry that no Lambda uses: trimmed before `chalice package` zips them.

Each cut is something no handler reads at run time, so the package behaves the same:
- botocore's service models, except the services the functions call (`AWS_SERVICES`): a client
  for any other service would fail with UnknownServiceError, so the list is checked against the
  code by tests/unit/test_lambda_slim.py;
- test suites and type stubs inside third-party packages (`tests/`, `*.pyi`);
- debug symbols in shared libraries (`strip --strip-unneeded`, when binutils is installed): the
  code and the dynamic symbol table are untouched, so the libraries load and compute as before
  (the ONNX package test embeds through the stripped onnxruntime and numpy).
Only `vendor/` is trimmed: the application's own code is packaged as it is.
"""

from __future__ import annotations

import py_compile
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

# boto3 clients the Lambdas build: SQS (kernel/queues.py), Secrets Manager (Powertools
# parameters, kernel/secrets.py), CloudWatch metrics and Logs (ops health, kernel/cloudwatch_logs.py);
# STS for credential chains that assume a role.
AWS_SERVICES = ("sqs", "secretsmanager", "cloudwatch", "logs", "sts")
OWN = ("functions", "certs", "models")  # vendored, but ours: never trimmed


def _remove(paths: Iterable[Path]) -> int:
    freed = 0
    for path in sorted(set(paths), reverse=True):
        if path.is_dir():
            freed += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
            shutil.rmtree(path)
        elif path.exists():
            freed += path.stat().st_size
            path.unlink()
    return freed


def _third_party(vendor: Path) -> list[Path]:
    return [p for p in vendor.iterdir() if p.name not in OWN and not p.name.endswith(".dist-info")]


def trim_botocore(vendor: Path, keep: Iterable[str] = AWS_SERVICES) -> int:
    data = vendor / "botocore" / "data"
    if not data.is_dir():
        return 0
    kept = set(keep)
    return _remove(p for p in data.iterdir() if p.is_dir() and p.name not in kept)


def trim_tests_and_stubs(vendor: Path) -> int:
    doomed: list[Path] = []
    for top in _third_party(vendor):
        if top.is_dir():
            doomed += [p for p in top.rglob("*") if p.is_dir() and p.name == "tests"]
            doomed += [p for p in top.rglob("*.pyi") if p.is_file()]
    return _remove(doomed)


def strip_libraries(vendor: Path) -> int:
    """Drop debug symbols from every shared library; 0 when `strip` is not installed."""
    strip = shutil.which("strip")
    if strip is None:
        return 0
    freed = 0
    for top in _third_party(vendor):
        candidates = top.rglob("*") if top.is_dir() else [top]
        for lib in candidates:
            if lib.is_file() and ".so" in lib.name and not lib.is_symlink():
                before = lib.stat().st_size
                subprocess.run([strip, "--strip-unneeded", str(lib)], capture_output=True, check=False)
                freed += before - lib.stat().st_size
    return freed


def slim(vendor: Path) -> dict[str, int]:
    """Trim `vendor` in place; bytes freed by each cut."""
    return {"botocore_models": trim_botocore(vendor), "tests_and_stubs": trim_tests_and_stubs(vendor),
            "debug_symbols": strip_libraries(vendor)}


def compile_sourceless(root: Path, names: Iterable[str]) -> int:
    """Replace each module under the top-level `names` by its compiled `.pyc`, in place of the source.

    Python imports a `module.pyc` that sits where `module.py` would (no `__pycache__`), so the
    package carries one file per module instead of two. The cost: tracebacks through these
    modules show file and line but not the line's text. Used where the zip would not fit
    otherwise (the ONNX package); the application's own code keeps its sources. Returns the
    bytes of source left out.
    """
    freed = 0
    for name in names:
        top = root / name
        sources = sorted(top.rglob("*.py")) if top.is_dir() else [top] if top.suffix == ".py" else []
        for source in sources:
            if not source.is_file() or "__pycache__" in source.parts:
                continue
            compiled = source.with_suffix(".pyc")
            try:
                py_compile.compile(str(source), cfile=str(compiled), doraise=True,
                                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
            except py_compile.PyCompileError:
                continue  # not Python this interpreter reads (a template, another version's code)
            freed += source.stat().st_size  # the __pycache__ copy it replaces is not made either
            source.unlink()
    return freed
