"""A contradiction the graph memory finds is announced in Telegram with Keep new / Keep old /
Keep both; pressing one resolves it (the whole local stack, the fake Bot API)."""

from __future__ import annotations

from pathlib import Path

from chalicelib.graph.domain.graph_model import NodeDraft
from chalicelib.wiring.graph import announce_contradiction
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP
from tests.support.telegram_stack import telegram_stack


def test_pressing_keep_new_supersedes_the_old_instruction(tmp_path: Path, database_url: str) -> None:
    with telegram_stack(tmp_path, database_url) as t:
        container = t.container
        with container.graph_units() as uow:
            old = uow.graph.insert_node(NodeDraft("web", "instruction", "Deploy on Fridays").checked(), None)
            new = uow.graph.insert_node(
                NodeDraft("web", "instruction", "Never deploy on Fridays").checked(), None
            )
            ident = uow.graph.add_contradiction("web", new.id, old.id, "same day, opposite rules")
            assert ident is not None
            found = uow.graph.get_contradiction(ident)
            uow.commit()
        announce_contradiction(container, found)

        sent = wait_for(
            lambda: [m for m in t.fake.sent_messages(GROUP) if "contradict" in str(m.get("text"))],
            what="the announcement",
        )[-1]
        assert "Never deploy on Fridays" in sent["text"] and "Deploy on Fridays" in sent["text"]
        t.press("Keep new")

        wait_for(
            lambda: container.graph_admin.profile(old.id)["superseded_by"] == new.id, what="the resolution"
        )
        assert container.graph_admin.contradictions("web") == []
        assert container.graph_admin.contradictions("web", "keep_new")[0]["id"] == ident
