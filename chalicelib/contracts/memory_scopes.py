"""The scopes a memory lives in, as the `project` column names them (standard library only).

A project's own memories carry its id; `_global` is shared by every project; a namespace `acme`
(a named set of projects) keeps its memories and rules under `ns:acme`, read by its members
between their own and `_global`'s. Project ids come from a repository's remote or directory name
(`project_identity`) and never start with `ns:`.
"""

from __future__ import annotations

import re

GLOBAL_PROJECT = "_global"
NAMESPACE_PREFIX = "ns:"
NAMESPACE_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$")


def namespace_scope(name: str) -> str:
    """The `project` value of the namespace `name`'s memories (`ns:acme`)."""
    return NAMESPACE_PREFIX + name


def namespace_of(project: object) -> str | None:
    """The namespace whose scope `project` is (`acme` for `ns:acme`), None for any other project."""
    if isinstance(project, str) and project.startswith(NAMESPACE_PREFIX):
        return project[len(NAMESPACE_PREFIX):] or None
    return None
