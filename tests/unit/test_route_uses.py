"""Every routes module's `Uses` names services the container has, with the container's types.

A view reads `bp.services.<name>` from the container (app.py provides it); mypy checks the view
against `Uses`, and this test checks `Uses` against `Container`: each name is on it and the type
it declares is the container's, or a Protocol of the routes' own that the container's type meets.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cached_property
from typing import Any, Protocol

import pytest

import app
from chalicelib.bootstrap import Container

pytestmark = pytest.mark.unit


def _namespace(module_name: str) -> dict[str, Any]:
    """The module's globals plus what its `if TYPE_CHECKING:` blocks import (what annotations name)."""
    module = sys.modules[module_name]
    namespace = dict(vars(module))
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            exec(compile(ast.Module(body=node.body, type_ignores=[]), module_name, "exec"), namespace)
    return namespace


def _resolved(annotation: Any, module_name: str) -> Any:
    return eval(annotation, _namespace(module_name)) if isinstance(annotation, str) else annotation


def declared(uses: type) -> dict[str, Any]:
    """What a `Uses` class names, its bases' names included: name -> type."""
    found: dict[str, Any] = {}
    for base in reversed(uses.__mro__[:-1]):
        for name, annotation in vars(base).get("__annotations__", {}).items():
            found[name] = _resolved(annotation, base.__module__)
    return found


def provided(name: str) -> Any:
    """The type the container gives `name`, or None when it has no such member."""
    member = inspect.getattr_static(Container, name, None)
    getter = member.func if isinstance(member, cached_property) else getattr(member, "fget", None)
    if getter is not None and "return" in getter.__annotations__:
        return _resolved(getter.__annotations__["return"], getter.__module__)
    for owner in Container.__mro__:  # a dataclass field, or a wiring mixin's `name: Type = provide(...)`
        if name in vars(owner).get("__annotations__", {}):
            return _resolved(owner.__annotations__[name], owner.__module__)
    return None


def _protocol_members(protocol: type) -> set[str]:
    return {name for base in protocol.__mro__ if base not in (Protocol, object) and base.__name__ != "Generic"
            for name in vars(base) if not name.startswith("_")}


def mismatches(uses: type) -> list[str]:
    """Each name of `uses` the container lacks or types otherwise."""
    found = []
    for name, wanted in declared(uses).items():
        have = provided(name)
        if have is None:
            found.append(f"{uses.__module__}.Uses.{name}: the container has no {name}")
        elif wanted is not have and not (getattr(wanted, "_is_protocol", False)
                                         and all(hasattr(have, m) for m in _protocol_members(wanted))):
            found.append(f"{uses.__module__}.Uses.{name}: {wanted!r}, but the container's is {have!r}")
    return found


def test_every_served_routes_module_uses_only_what_the_container_has_with_its_types() -> None:
    assert len(app.SERVED) > 30, "app.SERVED lists the routes modules served from the container"
    bad = [problem for blueprint in app.SERVED for problem in mismatches(blueprint.uses)]
    assert not bad, "\n".join(bad)


def test_the_check_reads_every_service_a_uses_names() -> None:
    from chalicelib.console.routes import overview_pages
    from chalicelib.tasks.services.tasks import TaskService

    names = declared(overview_pages.Uses)
    assert names["tasks"] is TaskService
    assert "console_auth" in names  # from the console's shared base
    assert provided("tasks") is TaskService


def test_a_uses_naming_a_missing_service_or_another_type_is_reported() -> None:
    class Uses:
        tasks: int
        no_such_service: str

    assert mismatches(Uses) == [
        f"{__name__}.Uses.tasks: {int!r}, but the container's is {provided('tasks')!r}",
        f"{__name__}.Uses.no_such_service: the container has no no_such_service",
    ]
