"""The Lambda package as `make package` builds it (`python -m infra.package`), offline.

`tests/conftest.py`'s session fixture `lambda_package` builds each embedding's package once per
test process and hands the same `dist` folder to every test that asks for it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
STAGE = "prod"
BUILD_TIMEOUT_S = 900  # the ONNX package takes about 2 minutes on a busy box


def offline_prefix() -> list[str]:
    """`unshare -n` (no network at all) when this machine lets us create a network namespace."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-n"]
    return []


def build_package(embedding: str | None, dist: Path, work: Path) -> Path:
    """Build the prod stage's zip, template and manifest into `dist`: with `embedding`, or with
    the stage's own provider when None."""
    command = [*offline_prefix(), sys.executable, "-m", "infra.package", "--stage", STAGE,
               *(["--embedding", embedding] if embedding else []), "--dist", str(dist), "--work", str(work)]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT_S, check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return dist
