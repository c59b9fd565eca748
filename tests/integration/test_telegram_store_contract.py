"""One contract for the Telegram unit of work: the Postgres tables and the in-memory fake agree.

The unit tests of the Telegram services run on the fake; these tests keep it honest by
running the same expectations against the real repositories.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.kernel.database import Database
from chalicelib.telegram.adapters.postgres_unit_of_work import telegram_units
from chalicelib.telegram.domain.folder_walk import FolderWalk
from chalicelib.telegram.domain.telegram_records import SessionRequestRow
from chalicelib.telegram.services.ports import UnitOfWorkFactory
from tests.fakes.telegram_store import TelegramStore

GROUP, ALICE = -1001234567890, 111111111


@pytest.fixture(params=["postgres", "in-memory"])
def uow(request: pytest.FixtureRequest) -> Iterator[UnitOfWorkFactory]:
    if request.param == "in-memory":
        yield TelegramStore().unit_of_work
        return
    db = Database(request.getfixturevalue("database_url"))
    try:
        yield telegram_units(db)
    finally:
        db.close()


def test_the_first_registration_of_a_topic_wins_and_it_can_be_found_and_closed(
    uow: UnitOfWorkFactory,
) -> None:
    with uow() as u:
        first = u.topics.register("task", "t-1", GROUP, 42, "myproject: fix the login bug")
        again = u.topics.register("task", "t-1", GROUP, 99, "another title")
        u.commit()
    assert again == first and (first.topic_id, first.status) == (42, "open")
    with uow() as u:
        assert u.topics.by_thread(GROUP, 42) == first
        assert u.topics.by_thread(GROUP, 43) is None
        u.topics.mark_closed("task", "t-1")
        u.commit()
    with uow() as u:
        assert u.topics.by_ref("task", "t-1").status == "closed"  # type: ignore[union-attr]
        assert u.topics.by_ref("task", "t-2") is None


def test_pending_output_comes_by_position_then_arrival_and_leaves_once_delivered(
    uow: UnitOfWorkFactory,
) -> None:
    with uow() as u:
        u.outbox.enqueue("task:t-1", GROUP, 42, [("text", "late", None), ("text", "second", 2)])
        u.outbox.enqueue("task:t-1", GROUP, 42, [("text", "first", 1), ("close", "✅ done", None)])
        u.outbox.enqueue("task:t-2", GROUP, 43, [("text", "other stream", None)])
        u.commit()
    with uow() as u:
        rows = u.outbox.pending("task:t-1")
        assert [(r.kind, r.body) for r in rows] == [("text", "first"), ("text", "second"), ("text", "late"),
                                                    ("close", "✅ done")]
        assert [r.body for r in u.outbox.pending("task:t-1", 2)] == ["first", "second"]
        assert sorted(u.outbox.stalled_streams(older_than_s=-1.0)) == ["task:t-1", "task:t-2"]
        assert u.outbox.state("task:t-1").last_flush_at is None
        u.outbox.delivered("task:t-1", [rows[0].id, rows[1].id])
        u.commit()
    with uow() as u:
        assert [r.body for r in u.outbox.pending("task:t-1")] == ["late", "✅ done"]
        assert u.outbox.state("task:t-1").last_flush_at is not None
        assert u.outbox.drop("task:t-1") == 2
        u.commit()
    with uow() as u:
        assert u.outbox.stalled_streams(older_than_s=-1.0) == ["task:t-2"]
        assert u.outbox.stalled_streams(older_than_s=3600) == []


def test_a_deferred_stream_is_held_back_for_the_time_asked(uow: UnitOfWorkFactory) -> None:
    with uow() as u:
        u.outbox.defer("task:t-1", 30)
        u.commit()
    with uow() as u:
        not_before = u.outbox.state("task:t-1").not_before
    assert not_before is not None
    assert timedelta(seconds=20) < not_before - datetime.now(UTC) <= timedelta(seconds=31)


def test_one_sender_holds_a_stream_until_its_unit_of_work_ends(uow: UnitOfWorkFactory) -> None:
    with uow() as holder:
        assert holder.outbox.try_lock("task:t-1")
        with uow() as other:
            assert not other.outbox.try_lock("task:t-1")
            assert other.outbox.try_lock("task:t-2")
    with uow() as later:
        assert later.outbox.try_lock("task:t-1")


def test_due_reminders_are_taken_once_and_a_released_one_comes_back(uow: UnitOfWorkFactory) -> None:
    now = datetime.now(UTC)
    with uow() as u:
        due = u.reminders.add(GROUP, 0, ALICE, "stretch", now - timedelta(minutes=1))
        u.reminders.add(GROUP, 42, ALICE, "deploy", now + timedelta(hours=1))
        u.commit()
    with uow() as u:
        (taken,) = u.reminders.take_due()
        assert (taken.id, taken.message, taken.attempts) == (due, "stretch", 1)
        assert u.reminders.take_due() == []
        assert [r.message for r in u.reminders.pending_for(ALICE)] == ["deploy"]
        assert u.reminders.release(due)
        u.commit()
    with uow() as u:
        assert [(r.id, r.attempts) for r in u.reminders.take_due()] == [(due, 2)]
        assert u.reminders.pending_for(ALICE + 1) == []


def test_a_session_request_is_chosen_once(uow: UnitOfWorkFactory) -> None:
    request = SessionRequestRow("a1b2c3d4e5", GROUP, 0, ALICE, "laptop", "myproject: show git status")
    with uow() as u:
        u.session_requests.add(request)
        u.commit()
    with uow() as u:
        assert u.session_requests.choose(request.id) == request
        assert u.session_requests.choose(request.id) is None
        assert u.session_requests.choose("ffffffffff") is None
        u.session_requests.attach_session(request.id, "session-1")
        u.commit()


def test_a_key_is_claimed_once_and_a_rolled_back_claim_never_happened(uow: UnitOfWorkFactory) -> None:
    with uow() as u:
        assert u.processed.claim("telegram-intake", "7")
        u.commit()
    with uow() as u:
        assert not u.processed.claim("telegram-intake", "7")
        assert u.processed.claim("telegram-intake", "8")  # not committed: rolled back on exit
    with uow() as u:
        assert u.processed.claim("telegram-intake", "8")
        assert u.processed.claim("telegram-consumer", "7")  # each consumer has its own keys
        u.commit()


def test_a_folder_walk_is_found_by_topic_and_listing_shows_its_folder_and_starts_once(
    uow: UnitOfWorkFactory,
) -> None:
    with uow() as u:
        u.session_requests.add(SessionRequestRow("r-walk", GROUP, 0, ALICE, "laptop", "show me git status"))
        u.folder_walks.add(FolderWalk("r-walk", GROUP, 42, "laptop", "codex", "itachic --ds",
                                      "show me git status", "laptop: show me git status", "l-1"))
        u.commit()
    with uow() as u:
        walk = u.folder_walks.by_thread(GROUP, 42)
        assert walk is not None and (walk.path, walk.engine, walk.listing_id) == (None, "codex", "l-1")
        u.folder_walks.asked("r-walk", "l-2")
        u.folder_walks.listed("r-walk", "/home/u/src", "", [{"name": "app", "repo": True}], 31, 0)
        u.commit()
    with uow() as u:
        assert u.folder_walks.by_listing("l-1") is None
        listed = u.folder_walks.by_listing("l-2")
        assert listed is not None
        assert (listed.path, listed.parent, list(listed.entries), listed.total) == (
            "/home/u/src", "", [{"name": "app", "repo": True}], 31)
        assert u.folder_walks.started("r-walk") is True
        assert u.folder_walks.started("r-walk") is False
        u.commit()
    with uow() as u:
        assert u.folder_walks.by_thread(GROUP, 42) is None  # a started walk takes no more replies
