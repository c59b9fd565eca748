"""The domain imports nothing from the outside world: standard library and itself only."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "chalicelib" / "domain"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_domain_modules_import_only_the_standard_library_and_the_domain() -> None:
    allowed = set(sys.stdlib_module_names) | {"__future__", "chalicelib"}
    offenders = {}
    for path in DOMAIN.rglob("*.py"):
        bad = {n for n in _imports(path) if n not in allowed}
        if bad:
            offenders[path.name] = bad
    assert offenders == {}


def test_domain_modules_import_no_other_chalicelib_layer() -> None:
    offenders = []
    for path in DOMAIN.rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("from chalicelib.", "import chalicelib.")) and \
                    not stripped.startswith(("from chalicelib.domain", "import chalicelib.domain")):
                offenders.append(f"{path.name}: {stripped}")
    assert offenders == []
