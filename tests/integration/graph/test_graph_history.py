"""A superseded graph node and its replacement each keep their own time: the replacement is valid
from when it was stated, the old node until then."""

from __future__ import annotations

from datetime import UTC, datetime

from chalicelib.bootstrap import Container
from chalicelib.graph.domain.graph_model import NodeDraft

PROJECT = "history"


def test_a_replacement_is_valid_from_when_it_was_stated_not_from_the_old_nodes_time(
        container: Container) -> None:
    stated = datetime(2025, 3, 3, tzinfo=UTC)
    with container.graph_units() as uow:
        old = uow.graph.insert_node(NodeDraft(PROJECT, "instruction", "Deploys go out on Tuesdays",
                                              valid_from=stated).checked(), None)
        uow.commit()
    before = datetime.now(UTC)

    replaced = container.graph_admin.supersede(PROJECT, old.id, "Deploys go out on Thursdays", None)

    old_view = container.graph_admin.profile(old.id)
    new_view = container.graph_admin.profile(replaced["new_id"])
    assert old_view["valid_from"] == stated.isoformat()
    new_from = datetime.fromisoformat(new_view["valid_from"])
    assert new_from >= before.replace(microsecond=0)
    assert datetime.fromisoformat(old_view["valid_until"]) >= new_from
