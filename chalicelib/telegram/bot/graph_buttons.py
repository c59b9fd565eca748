"""The buttons of an announced contradiction (the graph's, or a flagged rule's): Keep new, Keep
old, Keep both (once)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chalicelib.graph.domain.contradiction_buttons import PREFIX, RULE_PREFIX, parse_button, resolved_text
from chalicelib.kernel.errors import DomainError
from chalicelib.telegram.bot.buttons import Press, button
from chalicelib.telegram.bot.context import blocking

if TYPE_CHECKING:
    from chalicelib.graph.services.graph_admin import GraphAdmin
    from chalicelib.learning.services.rule_clashes import RuleClashes

PATTERN = f"^{PREFIX}:"
RULE_PATTERN = f"^{RULE_PREFIX}:"


@button(parse_button, lambda bot: bot.graph_admin)
async def resolved(press: Press[tuple[str, str]], graph: GraphAdmin) -> None:
    """A contradiction of the graph memory: unknown or already resolved is LookupError or ValueError."""
    await _settle(press, graph.resolve, (LookupError, ValueError), "Contradiction in")


@button(lambda data: parse_button(data, RULE_PREFIX), lambda bot: bot.rule_clashes)
async def settled(press: Press[tuple[str, str]], clashes: RuleClashes) -> None:
    """A flagged rule's button: the instruction store settles the clash."""
    await _settle(press, clashes.settle, (DomainError,), "Rules of")


async def _settle(press: Press[tuple[str, str]], settle: Callable[[str, str], dict[str, Any]],
                  refusals: tuple[type[Exception], ...], about: str) -> None:
    try:
        done = await blocking(settle, *press.choice)
    except refusals as exc:  # unknown, or already settled: a toast, not an alert
        await press.answer(str(exc)[:190])
        return
    await press.answer("Done.")
    await press.edit(f"{about} {done['project']}: {resolved_text(press.choice[1])}")
