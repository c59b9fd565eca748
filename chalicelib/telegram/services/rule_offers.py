"""/rules <project> and its ⬆ Promote to <namespace> buttons: a member project's rules offered for
promotion, one message each, and a press moved up through the one promotion (the API's and CLI's)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from chalicelib.contracts.memory_scopes import namespace_of
from chalicelib.kernel.errors import or_not_found
from chalicelib.telegram.domain.rule_buttons import (
    keyboard,
    listing,
    namespace_named,
    promoted_text,
    rule_line,
)
from chalicelib.telegram.services.ports import Keyboard

if TYPE_CHECKING:
    from chalicelib.learning.services.project_rules import ProjectRules
    from chalicelib.learning.services.rule_promotion import RulePromotion

OFFERED = 10  # messages with buttons per /rules: Telegram takes about 20 a minute in a group
PROMOTABLE = "project_rule"


class RuleOffers:
    def __init__(self, *, rules: Callable[[], ProjectRules], promotion: Callable[[], RulePromotion],
                 scopes_of: Callable[[str], Sequence[str]],
                 namespace_names: Callable[[], Sequence[str]]) -> None:
        self._rules = rules
        self._promotion = promotion
        self._scopes_of = scopes_of  # a project's namespace scopes (`ns:<name>`), by name
        self._namespace_names = namespace_names

    def offer(self, project: str) -> tuple[str, list[tuple[str, Keyboard]]]:
        """The listing, then (text, buttons) for each of the project's strongest rules it may promote."""
        names = [n for n in (namespace_of(s) for s in self._scopes_of(project)) if n]
        listed = self._rules().listed(project)
        own = [r for r in listed if r["category"] == PROMOTABLE and _own(r)]
        shared = [r for r in listed if r.get("namespace")]
        offers: list[tuple[str, Keyboard]] = [(rule_line(r), keyboard(r["id"], names))
                                              for r in own[:OFFERED]] if names else []
        return listing(project, names, own, shared, len(offers)), offers

    def promote(self, rule_id: str, namespace_ref: str, by: str) -> str:
        """Promote as a button asks; the text its message shows then."""
        name = or_not_found(namespace_named(namespace_ref, self._namespace_names()),
                            f"no namespace {namespace_ref!r}", field="namespace")
        return promoted_text(self._promotion().promote(rule_id, name, by=by), by)


def _own(rule: dict[str, Any]) -> bool:
    scope = str(rule.get("scope") or "")
    return scope != "global" and not scope.startswith("namespace:")
