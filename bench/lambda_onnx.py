"""The Lambda zip with the ONNX embedder: what it holds, and a cold start that embeds one query.

    .venv/bin/python bench/lambda_onnx.py [--zip dist/lambda.zip] [--runs 5]

Without --zip it builds one (`python -m infra.package --embedding onnx` into a temp dir, timed).
Prints the zip's unzipped size by part, then, for the API and the ingest consumer, the phases of
a cold start in a fresh `python -I -S` with only the unzipped package on its path and
PYTHONDONTWRITEBYTECODE=1 (as in /var/task): importing the handler's module, building the
settings and embedder, loading ONNX Runtime and the model and embedding "warm up", then one
query; median and range of wall and CPU seconds, and the peak RSS (`infra/lambda_probe.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "infra" / "lambda_probe.py"
HANDLERS = [("api (app.py)", "app", {}),
            ("ingest consumer", "functions.lambda_entry",
             {"ITACHI_HANDLER": "functions.ingest_consumer:handler"})]


def build(out: Path) -> tuple[Path, float]:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "infra.package", "--stage", "prod", "--embedding", "onnx",
                    "--dist", str(out / "dist"), "--work", str(out / "build")], cwd=ROOT, check=True)
    return out / "dist" / "lambda.zip", time.monotonic() - started


def parts(zip_path: Path) -> tuple[int, int, Counter[str]]:
    by: Counter[str] = Counter()
    with zipfile.ZipFile(zip_path) as zf:
        infos = zf.infolist()
    for info in infos:
        top = info.filename.split("/", 1)[0]
        key = "models (all-MiniLM-L6-v2 + tokenizer)" if top == "models" else top
        key = "numpy (+ numpy.libs)" if top.startswith("numpy") else key
        by[key.split("-")[0] if key.endswith(".dist-info") else key] += info.file_size
    return sum(i.file_size for i in infos), len(infos), by


def probe(code_dir: Path, module: str, extra: dict[str, str]) -> dict[str, object]:
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "AWS_DEFAULT_REGION": "us-east-1", "LAMBDA_TASK_ROOT": str(code_dir),
           "ITACHI_HOME": str(code_dir.parent / "home"), "ITACHI_EMBEDDING_PROVIDER": "onnx", **extra}
    out = subprocess.run([sys.executable, "-I", "-S", str(PROBE), str(code_dir), module,
                          "why did we pick pgvector for the memory store"],
                         env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--zip")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="itachi-lambda-onnx-") as tmp:
        if args.zip:
            zip_path = Path(args.zip)
        else:
            zip_path, seconds = build(Path(tmp))
            print(f"build (offline, --embedding onnx): {seconds:.0f} s wall")
        total, files, by = parts(zip_path)
        print(f"\n{zip_path.name}: {zip_path.stat().st_size / 1e6:.1f} MB zipped, "
              f"{total / 1e6:.1f} MB unzipped "
              f"({total / 2**20:.1f} MiB of the 250 MiB limit), {files} files\n")
        print("| part | unzipped MB |\n|---|---|")
        for name, size in by.most_common(12):
            print(f"| {name} | {size / 1e6:.1f} |")
        print(f"| everything else | {(total - sum(s for _, s in by.most_common(12))) / 1e6:.1f} |")
        code_dir = Path(tmp) / "task"
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(code_dir)
        print(f"\nCold start, {args.runs} fresh processes each: median wall s (min to max), median CPU s\n")
        print("| handler | import handler | settings + embedder | load runtime and model, first embed | "
              "one query | total | peak RSS MiB |\n|---|---|---|---|---|---|---|")
        for label, module, extra in HANDLERS:
            runs = [probe(code_dir, module, extra) for _ in range(args.runs)]
            cells = []
            for phase in ("import_handler", "settings", "load_and_first_embed", "embed", None):
                walls = [sum(p[0] for p in r["phases"].values()) if phase is None  # type: ignore[attr-defined]
                         else r["phases"][phase][0] for r in runs]  # type: ignore[index]
                cpus = [sum(p[1] for p in r["phases"].values()) if phase is None  # type: ignore[attr-defined]
                        else r["phases"][phase][1] for r in runs]  # type: ignore[index]
                cells.append(f"{statistics.median(walls):.2f} ({min(walls):.2f} to {max(walls):.2f}), "
                             f"CPU {statistics.median(cpus):.2f}")
            peak = max(float(r["peak_rss_mib"]) for r in runs)  # type: ignore[arg-type]
            print(f"| {label} | {' | '.join(cells)} | {peak:.0f} |")
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
