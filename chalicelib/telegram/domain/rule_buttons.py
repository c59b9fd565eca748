"""/rules: a project's rules as chat text, and the ⬆ Promote to <namespace> buttons as callback data.

Telegram allows 64 bytes of callback data: `rp:<the rule's UUID as 32 hex digits>:<namespace>`
leaves 28 characters for the namespace's name, so a longer name travels cut and is found again
as the one namespace whose name starts with it.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

PREFIX = "rp"
MAX_DATA = 64
NAME_ROOM = MAX_DATA - len(PREFIX) - 2 - 32
_DATA = re.compile(rf"^{PREFIX}:([0-9a-f]{{32}}):([a-z0-9][a-z0-9_.-]{{0,{NAME_ROOM - 1}}})$")
RULE_CHARS = 600
LISTED = 20  # rules written out in the first answer


def button_data(rule_id: str, namespace: str) -> str:
    return f"{PREFIX}:{uuid.UUID(rule_id).hex}:{namespace[:NAME_ROOM]}"


def parse_button(data: str) -> tuple[str, str] | None:
    """(rule id, the namespace's name or its cut) of a button's data; None when it is not one of ours."""
    m = _DATA.match(data)
    return (str(uuid.UUID(m[1])), m[2]) if m else None


def namespace_named(ref: str, names: Iterable[str]) -> str | None:
    """The namespace a button names: `ref` itself, or the one name `ref` is the cut of."""
    names = list(names)
    if ref in names:
        return ref
    cut = [n for n in names if len(ref) == NAME_ROOM and n.startswith(ref)]
    return cut[0] if len(cut) == 1 else None


def keyboard(rule_id: str, namespaces: Sequence[str]) -> list[list[tuple[str, str]]]:
    return [[(f"⬆ Promote to {name}", button_data(rule_id, name))] for name in namespaces]


def _cut(text: str) -> str:
    return text if len(text) <= RULE_CHARS else text[: RULE_CHARS - 1] + "…"


def rule_line(rule: dict[str, Any]) -> str:
    return f"{_cut(str(rule['text']))} (confidence {float(rule['confidence']):.2f})"


def listing(project: str, namespaces: Sequence[str], own: Sequence[dict[str, Any]],
            shared: Sequence[dict[str, Any]], offered: int) -> str:
    """The first answer to /rules: where the project's rules come from and what follows."""
    if not namespaces:
        more = [f"… and {len(own) - LISTED} more"] if len(own) > LISTED else []
        lines = [f"Rules of {project} ({len(own)}):", *(f"• {rule_line(r)}" for r in own[:LISTED]),
                 *more] if own else [f"{project} has no rules of its own yet."]
        return "\n".join([*lines, "", f"{project} is in no namespace: there is nowhere to promote them to."])
    head = f"Rules of {project}, a project of {', '.join(namespaces)}."
    if not own:
        body = [f"{project} has no rules of its own to promote."]
    else:
        body = [f"Its own {len(own)} rule(s) follow, each with a button to promote it: every project of the "
                "namespace reads it from then on."]
        if offered < len(own):
            body.append(f"The strongest {offered} are shown; promote the others with "
                        "`itachi namespace promote RULE_ID NAMESPACE` or in the console.")
    from_namespaces = [f"• {rule_line(r)} ({r['namespace']})" for r in shared[:LISTED]]
    return "\n".join([head, *body, *(["", "From its namespaces:", *from_namespaces] if shared else [])])


def promoted_text(done: dict[str, Any], by: str) -> str:
    """The promoted rule's message once its button has been pressed."""
    namespace = done["namespace"]
    how = (f"it was there already, reinforced ({done['times_reinforced']}x)"
           if done.get("outcome") == "reinforced" else f"every project of {namespace} reads it now")
    return (f"⬆ Promoted to {namespace} by {by}: {_cut(str(done['rule']))}\n"
            f"From {done['promoted_from']['project']}; {how}.")
