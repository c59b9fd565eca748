"""`make package`: build the Lambda zip and the production template into dist/, offline.

Steps: stage a Chalice project under build/ (app.py, chalicelib, the stage config, and a
`vendor/` holding functions/, the two tables and the Lambda dependencies copied from this
virtualenv), run `chalice package` on it, precompile every module into the zip, and render
dist/template.json around Chalice's SAM output.

Why vendor from the virtualenv: `chalice package` would run `pip download` against the package
index for requirements.txt, which needs the network. The virtualenv was installed from the same
pinned requirements.txt, for the same interpreter (CPython 3.11, x86_64 Linux) as the Lambda
runtime, so its installed files are the wheels Chalice would fetch. Each pin is checked against
the installed version, and each binary wheel's platform tag against the Lambda runtime's glibc.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from infra.aws.ca_bundle import BUNDLE_FILE, ZIP_PATH
from infra.aws.functions import table_functions
from infra.aws.stage import REPO_ROOT, StageConfig, load_stage
from infra.lambda_onnx import ONNX_PROVIDERS, OnnxPackageError, vendor_onnx
from infra.lambda_slim import OWN, compile_sourceless, slim
from infra.template import dump, function_ids, render

ZIP_NAME = "lambda.zip"
LAMBDA_LIMIT_BYTES = 250 * 1024 * 1024  # a zip package, unzipped (layers included)
EMBEDDINGS = ("openai", "onnx")
ONNX_REQUIREMENTS = "requirements-lambda-onnx.txt"
TEMPLATE_NAME = "template.json"
LAMBDA_GLIBC = (2, 26)  # the python3.11 Lambda runtime (Amazon Linux 2)
LEGACY_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "node_modules")


class PackageError(RuntimeError):
    """The Lambda package cannot be built from this environment."""


@dataclass(frozen=True)
class Artifact:
    path: Path
    sha256: str
    zipped_bytes: int
    unzipped_bytes: int
    files: int
    sourceless_bytes: int = 0  # module sources replaced by their .pyc (the ONNX package)


def lambda_requirements(requirements: Path) -> list[metadata.Distribution]:
    """Return the installed distributions that requirements.txt needs, dependencies included."""
    found: dict[str, metadata.Distribution] = {}

    def visit(req: Requirement, pinned: bool) -> None:
        name = canonicalize_name(req.name)
        if name in found:
            return
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            raise PackageError(f"{req.name} is not installed in this virtualenv: run `make` first") from None
        if pinned and req.specifier and not req.specifier.contains(dist.version, prereleases=True):
            raise PackageError(f"{req.name} {dist.version} is installed but requirements.txt asks for "
                               f"{req.specifier}: reinstall the virtualenv (`make`)")
        found[name] = dist
        extras = set(req.extras) | {""}
        for line in dist.requires or []:
            sub_req = Requirement(line)
            if sub_req.marker is None or any(sub_req.marker.evaluate({"extra": e}) for e in extras):
                visit(sub_req, pinned=False)

    for raw in requirements.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            visit(Requirement(line), pinned=True)
    return sorted(found.values(), key=lambda d: canonicalize_name(d.metadata["Name"]))


def _platform_ok(tag: str) -> bool:
    platform = tag.rsplit("-", 1)[-1]
    if platform == "any":
        return True
    legacy = LEGACY_MANYLINUX.get(platform.removesuffix("_x86_64"))
    if legacy and platform.endswith("_x86_64"):
        return legacy <= LAMBDA_GLIBC
    match = re.fullmatch(r"manylinux_(\d+)_(\d+)_x86_64", platform)
    if match is None:
        return False
    return (int(match[1]), int(match[2])) <= LAMBDA_GLIBC


def check_wheel_tags(label: str, tags: Iterable[object]) -> None:
    names = sorted(str(t) for t in tags)
    if names and not any(_platform_ok(t) for t in names):
        raise PackageError(f"{label} is built as {names[0]}, which the python3.11 Lambda runtime "
                           f"(glibc 2.26) cannot load; pin a version with a manylinux2014 wheel")


def check_lambda_compatible(dist: metadata.Distribution) -> None:
    tags = [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines()
            if line.startswith("Tag:")]
    check_wheel_tags(f"{dist.metadata['Name']} {dist.version} (installed)", tags)


def vendor_dependencies(requirements: Path, target: Path) -> list[str]:
    """Copy each needed distribution's installed files (sources, binaries, metadata) into `target`."""
    names = []
    for dist in lambda_requirements(requirements):
        check_lambda_compatible(dist)
        for entry in dist.files or []:
            parts = entry.parts
            if parts[0] == ".." or "__pycache__" in parts or entry.suffix in (".pyc", ".pyo"):
                continue
            source = Path(str(dist.locate_file(entry)))
            if source.is_file():
                dest = target / entry
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)
        names.append(f"{dist.metadata['Name']}=={dist.version}")
    return names


def copy_console_assets(code: Path) -> None:
    """The console's library files as `npm ci` installed them (only the ones it serves)."""
    from chalicelib.console.assets import FILES, HERE

    target = code / HERE.relative_to(REPO_ROOT / "chalicelib")
    for relative, _ in FILES.values():
        source = HERE / relative
        if not source.is_file():
            raise PackageError(f"{source} is missing: run `npm ci --prefix {HERE}` (make does)")
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / relative)


def embedding_of(stage: str, override: str | None = None) -> str:
    """The embedding provider the stage's Lambdas use: `openai` or `onnx` (docs/deploy.md)."""
    provider = override or load_stage(stage).env.get("ITACHI_EMBEDDING_PROVIDER", "openai")
    provider = "onnx" if provider in ONNX_PROVIDERS else provider
    if provider not in EMBEDDINGS:
        raise PackageError(f"embedding provider {provider!r}: a Lambda embeds with "
                           f"{' or '.join(EMBEDDINGS)}")
    return provider


def with_embedding(config: StageConfig, provider: str) -> StageConfig:
    """The stage with its provider in every function's environment (the migrations' too)."""
    return replace(config, env={**config.env, "ITACHI_EMBEDDING_PROVIDER": provider})


def stage_project(stage: str, work: Path, *, embedding: str = "openai",
                  trimmed: dict[str, int] | None = None) -> Path:
    """Lay out the Chalice project that `chalice package` turns into the zip."""
    project = work / "project"
    project.mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "app.py", project / "app.py")
    shutil.copytree(REPO_ROOT / "chalicelib", project / "chalicelib", ignore=IGNORED)
    copy_console_assets(project / "chalicelib")
    shutil.copytree(REPO_ROOT / ".chalice", project / ".chalice",
                    ignore=shutil.ignore_patterns("deployments", "venv"))
    (project / "requirements.txt").write_text("# dependencies are vendored by infra/package.py\n")
    vendor = project / "vendor"
    shutil.copytree(REPO_ROOT / "functions", vendor / "functions", ignore=IGNORED)
    # The CA bundle clients verify the database's certificate against (sslmode=verify-full).
    (vendor / ZIP_PATH).parent.mkdir(parents=True)
    shutil.copy2(BUNDLE_FILE, vendor / ZIP_PATH)
    vendor_dependencies(REPO_ROOT / "requirements.txt", vendor)
    if embedding == "onnx":
        try:
            vendor_onnx(REPO_ROOT / ONNX_REQUIREMENTS, vendor)
        except OnnxPackageError as exc:
            raise PackageError(str(exc)) from None
    (trimmed if trimmed is not None else {}).update(slim(vendor))
    return project


def check_handlers(code_root: Path, targets: list[str]) -> None:
    """Every table handler ("module:function") must exist in the code the Lambdas get."""
    for target in targets:
        module, _, attr = target.partition(":")
        source = code_root / (module.replace(".", "/") + ".py")
        if not source.is_file():
            raise PackageError(f"{target}: {source.relative_to(code_root)} is not in the Lambda code")
        if not re.search(rf"^(async )?def {re.escape(attr)}\b|^{re.escape(attr)}\s*=", source.read_text(),
                         re.MULTILINE):
            raise PackageError(f"{target}: {source.relative_to(code_root)} defines no {attr}")


def run_chalice(project: Path, stage: str, out: Path) -> None:
    chalice = Path(sys.executable).parent / "chalice"
    env = {**os.environ, "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1")}
    result = subprocess.run([str(chalice), "package", "--stage", stage, str(out)], cwd=project, env=env,
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise PackageError(f"chalice package failed:\n{result.stdout}\n{result.stderr}")


def precompile_zip(source: Path, dest: Path, *, with_pyc: bool = True,
                   sourceless: Iterable[str] = ()) -> Artifact:
    """Rewrite `source` deterministically, adding unchecked-hash .pyc files next to every module.

    Lambda's /var/task is read-only, so without these every cold start compiles every module it
    imports. Unchecked-hash pycs are used without looking at source timestamps.
    """
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        with zipfile.ZipFile(source) as zf:
            zf.extractall(root)
        sourceless_bytes = compile_sourceless(root, sourceless)
        if with_pyc:
            compileall.compile_dir(root, quiet=2, workers=0,
                                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        files = sorted(p for p in root.rglob("*") if p.is_file())
        dest.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as out:
            for path in files:
                info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                out.writestr(info, path.read_bytes())
        unzipped = sum(p.stat().st_size for p in files)
    digest = hashlib.sha256(dest.read_bytes()).hexdigest()
    return Artifact(dest, digest, dest.stat().st_size, unzipped, len(files), sourceless_bytes)


def render_template(stage: str, work: Path, embedding: str | None = None) -> dict[str, object]:
    """The stage's template alone (no zip): `chalice package` over the app without dependencies."""
    config = with_embedding(load_stage(stage), embedding_of(stage, embedding))
    project = work / "project"
    shutil.rmtree(work, ignore_errors=True)
    project.mkdir(parents=True)
    shutil.copy2(REPO_ROOT / "app.py", project / "app.py")
    shutil.copytree(REPO_ROOT / "chalicelib", project / "chalicelib", ignore=IGNORED)
    shutil.copytree(REPO_ROOT / ".chalice", project / ".chalice",
                    ignore=shutil.ignore_patterns("deployments", "venv"))
    (project / "requirements.txt").write_text("")
    run_chalice(project, stage, work / "chalice-out")
    sam = json.loads((work / "chalice-out" / "sam.json").read_text())
    return render(sam, config, code_uri=f"./{ZIP_NAME}")


def build(stage: str, dist: Path, *, work: Path | None = None,
          embedding: str | None = None) -> dict[str, object]:
    """Build dist/lambda.zip, dist/template.json and dist/manifest.json for `stage`."""
    started = time.monotonic()
    provider = embedding_of(stage, embedding)
    config = with_embedding(load_stage(stage), provider)
    work = work or REPO_ROOT / "build" / "lambda" / stage
    shutil.rmtree(work, ignore_errors=True)
    trimmed: dict[str, int] = {}
    project = stage_project(stage, work, embedding=provider, trimmed=trimmed)
    check_handlers(project / "vendor", [fn.target for fn in table_functions() if fn.target])
    chalice_out = work / "chalice-out"
    run_chalice(project, stage, chalice_out)
    # The ONNX package fits only with the dependencies' modules compiled in place of their sources.
    vendored = [p.name for p in (project / "vendor").iterdir() if p.name not in OWN]
    sourceless = vendored if provider == "onnx" else []
    artifact = precompile_zip(chalice_out / "deployment.zip", dist / ZIP_NAME, sourceless=sourceless)
    sam = json.loads((chalice_out / "sam.json").read_text())
    template = render(sam, config, code_uri=f"./{ZIP_NAME}")
    dump(template, dist / TEMPLATE_NAME)
    if artifact.unzipped_bytes >= LAMBDA_LIMIT_BYTES:
        raise PackageError(f"{ZIP_NAME} is {artifact.unzipped_bytes / 1e6:.1f} MB unzipped, over the "
                           f"Lambda limit of {LAMBDA_LIMIT_BYTES / 1e6:.1f} MB")
    manifest: dict[str, object] = {
        "stage": stage, "stack_name": config.stack_name, "template": TEMPLATE_NAME, "embedding": provider,
        "code": {"file": ZIP_NAME, "sha256": artifact.sha256, "zipped_bytes": artifact.zipped_bytes,
                 "unzipped_bytes": artifact.unzipped_bytes, "files": artifact.files},
        "left_out_bytes": {**trimmed, "sources_compiled_in_place": artifact.sourceless_bytes},
        "parameters": config.parameters, "functions": function_ids(template),
        "build_seconds": round(time.monotonic() - started, 1),
    }
    (dist / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.package", description=__doc__.splitlines()[0])
    parser.add_argument("--stage", default="prod")
    parser.add_argument("--dist", default=str(REPO_ROOT / "dist"))
    parser.add_argument("--work", help="scratch directory (default build/lambda/<stage>)")
    parser.add_argument("--embedding", choices=EMBEDDINGS,
                        help="embed with OpenAI or the ONNX model inside the zip (default: the stage's "
                             "ITACHI_EMBEDDING_PROVIDER)")
    parser.add_argument("--template-only", action="store_true",
                        help="render dist/template.json alone, without building the zip")
    args = parser.parse_args(argv)
    if args.template_only:
        work = Path(args.work) if args.work else REPO_ROOT / "build" / "template" / args.stage
        Path(args.dist).mkdir(parents=True, exist_ok=True)
        dump(render_template(args.stage, work, args.embedding), Path(args.dist) / TEMPLATE_NAME)
        return 0
    try:
        manifest = build(args.stage, Path(args.dist), work=Path(args.work) if args.work else None,
                         embedding=args.embedding)
    except PackageError as exc:
        print(f"package failed: {exc}", file=sys.stderr)
        return 1
    code = manifest["code"]
    assert isinstance(code, dict)
    print(f"dist/{ZIP_NAME} ({manifest['embedding']} embeddings): "
          f"{code['zipped_bytes'] / 1e6:.1f} MB zipped, "
          f"{code['unzipped_bytes'] / 1e6:.1f} MB unzipped; dist/{TEMPLATE_NAME}: "
          f"{len(manifest['functions'])} functions; {manifest['build_seconds']} s")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
