"""The import rules of docs/architecture.md, checked on the source: dependencies point inward.

Every import counts, including those inside functions (a lazy import is still a dependency).
The layer rules skip `if TYPE_CHECKING:` blocks, since they never run; the capability graph counts
them (a type named is a dependency a reader follows), and routes modules too.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
# Stdlib-only leaves any layer may use: wire formats, the error vocabulary, the redactor.
PURE_SHARED = ("chalicelib.contracts", "chalicelib.kernel.errors", "chalicelib.kernel.redaction")
# Adapters of the kernel: services reach them only through ports and the unit of work.
KERNEL_ADAPTERS = ("chalicelib.kernel.database", "chalicelib.kernel.idempotency", "chalicelib.kernel.queues",
                   "chalicelib.kernel.migrations", "chalicelib.kernel.secrets")
DRIVERS = ("psycopg", "psycopg_pool", "pgvector", "boto3", "botocore", "telegram", "openai")
# Entry points: they alone may ask the composition root for ready services.
# The composition root is bootstrap.py plus the capabilities' wiring mixins it composes.
ENTRY_POINTS = ("app", "functions.", "infra.", "agent.", "chalicelib.bootstrap", "chalicelib.wiring")


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def source_files(*tops: str) -> Iterator[Path]:
    for top in tops:
        target = ROOT / top
        yield from [target] if target.is_file() else sorted(target.rglob("*.py"))


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(path: Path, *, typing_too: bool = False) -> set[str]:
    """Absolute module names imported by the file (outside TYPE_CHECKING blocks unless `typing_too`)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not typing_too:
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), filename=str(path)))
    return found


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") or (p.endswith(".") and name.startswith(p))
               for p in prefixes)


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[0] == "chalicelib" else None


def _violations(rule: str, check: dict[str, set[str]]) -> list[str]:
    return [f"{module} imports {name}  ({rule})"
            for module, names in sorted(check.items()) for name in sorted(names)]


def _graph(*, typing_too: bool = False) -> dict[str, set[str]]:
    return {module_name(p): imports_of(p, typing_too=typing_too)
            for p in source_files("chalicelib", "functions", "app.py", "agent", "hooks")}


def _layer_violations(layer: str, allowed: Callable[[str], bool]) -> dict[str, set[str]]:
    """Imports of modules in `layer` (domain, services...) that `allowed` refuses."""
    bad: dict[str, set[str]] = defaultdict(set)
    for module, names in _graph().items():
        if _layer(module) == layer:
            bad[module].update(name for name in names if not allowed(name))
    return {module: names for module, names in bad.items() if names}


def _pure(name: str) -> bool:
    top = name.split(".")[0]
    return top in STDLIB or _within(name, PURE_SHARED) or (top == "chalicelib" and _layer(name) == "domain")


def test_domain_modules_import_only_the_standard_library_and_other_domains() -> None:
    bad = _layer_violations("domain", _pure)
    assert not bad, "\n".join(_violations("domain is pure", bad))


def test_services_never_import_adapters_or_drivers() -> None:
    bad = _layer_violations("services", lambda name: not (
        _layer(name) == "adapters" or _within(name, KERNEL_ADAPTERS) or _within(name, DRIVERS)))
    assert not bad, "\n".join(_violations("services use ports and a unit of work", bad))


def test_only_entry_points_import_the_composition_root() -> None:
    bad = {module: {"chalicelib.bootstrap"} for module, names in _graph(typing_too=True).items()
           if "chalicelib.bootstrap" in names and not _within(module, ENTRY_POINTS)}
    assert not bad, "\n".join(_violations("only entry points use bootstrap", bad))


def test_the_runtime_never_imports_infra() -> None:
    graph = {module_name(p): imports_of(p) for p in source_files("chalicelib", "functions", "app.py")}
    bad = {module: {n for n in names if _within(n, ("infra",))} for module, names in graph.items()}
    bad = {module: names for module, names in bad.items() if names}
    assert not bad, "\n".join(_violations("infra/ deploys the runtime, never the reverse", bad))


def _capability(module: str) -> str | None:
    parts = module.split(".")
    shared = ("kernel", "contracts", "migrations", "wiring", "bootstrap")
    if parts[0] != "chalicelib" or len(parts) < 3 or parts[1] in shared:
        return None
    return parts[1]


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)):
            return found
    return None


def capability_edges() -> dict[str, set[str]]:
    """Which capability imports which: every module, routes and `TYPE_CHECKING` imports included."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, names in _graph(typing_too=True).items():
        source = _capability(module)
        if source is None:
            continue
        for name in names:
            target = _capability(name)
            if target and target != source:
                edges[source].add(target)
    return edges


def test_capability_packages_do_not_import_each_other_in_a_circle() -> None:
    edges = capability_edges()
    assert _cycle(edges) is None, f"import cycle between capabilities: {' -> '.join(_cycle(edges) or [])}"


def agent_module_edges() -> dict[str, set[str]]:
    """Which module of `agent/` imports which: lazy imports count, `TYPE_CHECKING` ones never run."""
    modules = {module_name(p): p for p in source_files("agent")}

    def module_of(name: str) -> str | None:  # `agent.x.Name` -> `agent.x`
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    return {module: {found for name in imports_of(path) if (found := module_of(name)) not in (None, module)}
            for module, path in modules.items()}


def test_the_agent_has_no_import_circle() -> None:
    edges = agent_module_edges()
    assert any(edges.values()), "the agent's import graph is empty: the checker parses nothing"
    assert _cycle(edges) is None, f"import cycle in agent/: {' -> '.join(_cycle(edges) or [])}"


def test_the_capability_graph_is_the_one_docs_architecture_draws() -> None:
    """docs/architecture.md's table lists, per capability, exactly the capabilities it imports."""
    doc = (ROOT / "docs/architecture.md").read_text()
    section = doc.split("<!-- capability-graph -->")[1]
    documented: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip(" `") for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] and not set(cells[0]) <= {"-"} and cells[0] != "capability":
            documented[cells[0]] = {c.strip(" `") for c in cells[1].split(",") if c.strip(" `-")}
    actual = {cap: set(targets) for cap, targets in capability_edges().items()}
    for cap in {_capability(m) for m in _graph()} - {None}:
        actual.setdefault(str(cap), set())
    assert documented == actual


def test_the_rules_see_real_imports() -> None:
    """Guard against a checker that passes because it parses nothing."""
    graph = _graph()
    assert "chalicelib.memory.services.memory_service" in graph
    assert any(_layer(n) == "domain" for n in graph["chalicelib.memory.services.memory_service"])
    assert "chalicelib.bootstrap" in graph["app"]
