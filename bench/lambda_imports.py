"""Cold-start import time of each Lambda handler, from dist/lambda.zip, with and without .pyc.

Run `make package` first, then `.venv/bin/python bench/lambda_imports.py [--runs 7]`.
Each measurement is a fresh interpreter (`python -S`: no site-packages, only the unzipped
package, like /var/task) with PYTHONDONTWRITEBYTECODE=1 (Lambda's code directory is read-only,
so nothing compiled during one cold start helps the next). Prints a Markdown table: the
median CPU time and the fastest wall time of the handler's import, the `-X importtime`
total, and the top offenders.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import zipfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chalicelib.kernel.queue_table import QUEUES  # noqa: E402
from chalicelib.kernel.schedule_table import SCHEDULES  # noqa: E402


def handlers() -> list[tuple[str, str, dict[str, str]]]:
    """(label, module to import, extra environment) for every function in the template."""
    rows: list[tuple[str, str, dict[str, str]]] = [("api (app.py)", "app", {})]
    for q in QUEUES:
        if q.consumer:
            rows.append((f"{q.key} consumer", "functions.lambda_entry", {"ITACHI_HANDLER": q.consumer}))
    for s in SCHEDULES:
        rows.append((f"{s.name} schedule", "functions.lambda_entry", {"ITACHI_HANDLER": s.handler}))
    rows.append(("migrations (deploy step)", "functions.migrate_on_deploy", {}))
    return rows


def extract(zip_path: Path, dest: Path, *, with_pyc: bool) -> None:
    with zipfile.ZipFile(zip_path) as zf:
        for name in zf.namelist():
            if with_pyc or "__pycache__/" not in name:
                zf.extract(name, dest)


def _env(extra: dict[str, str]) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8",
            "AWS_DEFAULT_REGION": "us-east-1", **extra}


def import_cost(code_dir: Path, module: str, extra: dict[str, str]) -> tuple[float, float]:
    """Return (wall seconds, CPU seconds) of importing `module` in a fresh interpreter.

    CPU time is what the import itself burns, so it moves less than wall time when other work
    shares the machine.
    """
    program = (f"import sys, time; sys.path.insert(0, {str(code_dir)!r}); "
               f"w = time.perf_counter(); c = time.process_time(); import {module}; "
               f"print(time.perf_counter() - w, time.process_time() - c)")
    out = subprocess.run([sys.executable, "-S", "-c", program], env=_env(extra), capture_output=True,
                         text=True, check=True)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def import_profile(code_dir: Path, module: str,
                   extra: dict[str, str]) -> tuple[float, list[tuple[str, float]]]:
    """Return (total ms, top-level packages by cumulative ms) from -X importtime."""
    def run(program: str) -> list[tuple[int, str, int]]:
        err = subprocess.run([sys.executable, "-S", "-X", "importtime", "-c", program], env=_env(extra),
                             capture_output=True, text=True, check=True).stderr
        rows = []
        for line in err.splitlines():
            if not line.startswith("import time:") or "|" not in line or "cumulative" in line:
                continue
            _, cumulative, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
            depth = (len(line.split("|")[2]) - len(line.split("|")[2].lstrip())) // 2
            rows.append((depth, name, int(cumulative)))
        return rows

    startup = {name for _, name, _ in run("pass")}
    rows = run(f"import sys; sys.path.insert(0, {str(code_dir)!r}); import {module}")
    by_package: dict[str, int] = defaultdict(int)
    total = 0
    own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
    for depth, name, cumulative in rows:
        if name in startup:
            continue
        if depth == 0:
            total += cumulative
        parts = name.split(".")
        key = ".".join(parts[:2]) if parts[0] in ("chalicelib", "functions") else parts[0]
        if key not in own:
            by_package[key] = max(by_package[key], cumulative)
    top = sorted(by_package.items(), key=lambda kv: -kv[1])[:5]
    return total / 1000, [(name, us / 1000) for name, us in top]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--zip", default=str(ROOT / "dist" / "lambda.zip"))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    zip_path = Path(args.zip)
    if not zip_path.exists():
        print("dist/lambda.zip is missing: run `make package` first", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {True: Path(tmp) / "pyc", False: Path(tmp) / "source"}
        for with_pyc, d in dirs.items():
            extract(zip_path, d, with_pyc=with_pyc)
        print("| handler | with .pyc, ms: CPU median (wall min) | without .pyc: CPU median (wall min) | "
              "importtime total .pyc / no .pyc (ms) | top offenders with .pyc (cumulative ms) |")
        print("|---|---|---|---|---|")
        for label, module, extra in handlers():
            cpus, mins, totals = {}, {}, {}
            offenders: list[tuple[str, float]] = []
            try:
                for with_pyc, d in dirs.items():
                    samples = [import_cost(d, module, extra) for _ in range(args.runs)]
                    cpus[with_pyc] = statistics.median(cpu for _, cpu in samples)
                    mins[with_pyc] = min(wall for wall, _ in samples)
                    totals[with_pyc], top = import_profile(d, module, extra)
                    if with_pyc:
                        offenders = top
            except subprocess.CalledProcessError:
                print(f"| {label} | handler {extra.get('ITACHI_HANDLER', module)} not importable yet | | | |")
                continue
            top_text = ", ".join(f"{name} {ms:.0f}" for name, ms in offenders)
            print(f"| {label} | {cpus[True] * 1000:.0f} ({mins[True] * 1000:.0f}) | "
                  f"{cpus[False] * 1000:.0f} ({mins[False] * 1000:.0f}) | "
                  f"{totals[True]:.0f} / {totals[False]:.0f} | {top_text} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
