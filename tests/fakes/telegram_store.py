"""In-memory Telegram tables behind the Telegram unit of work, for unit tests of its services.

`TelegramStore` holds the rows; `store.unit_of_work` is the factory services take. Leaving a
unit of work without committing restores the tables it changed (fine with one writer at a
time, which is how unit tests drive it); a stream lock lasts until its unit of work ends.
`FakeClock` stands in for Postgres's `now()` and for the pace's sleeps.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Self

from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.telegram.domain.folder_walk import FolderWalk
from chalicelib.telegram.domain.resume_choices import ResumeListing
from chalicelib.telegram.domain.telegram_records import (
    DueReminder,
    OutboxRow,
    SessionRequestRow,
    StreamState,
    Topic,
)
from chalicelib.telegram.services import ports
from chalicelib.telegram.services.ports import OutboxItem

MAX_ATTEMPTS = 5  # as the Postgres reminder repository


class FakeClock:
    def __init__(self, start: datetime | None = None) -> None:
        self.current = start or datetime.now(UTC)
        self.slept: list[float] = []

    def now(self) -> datetime:
        return self.current

    def advance(self, seconds: float) -> None:
        self.current += timedelta(seconds=seconds)

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)


@dataclass
class _Pending:
    stream: str
    row: OutboxRow
    position: int | None
    created_at: datetime


@dataclass
class Tables:
    topics: dict[tuple[str, str], Topic] = field(default_factory=dict)
    outbox: list[_Pending] = field(default_factory=list)
    streams: dict[str, StreamState] = field(default_factory=dict)
    reminders: dict[int, tuple[DueReminder, bool]] = field(default_factory=dict)  # (reminder, sent)
    session_requests: dict[str, tuple[SessionRequestRow, bool]] = field(default_factory=dict)  # (row, chosen)
    processed: set[tuple[str, str]] = field(default_factory=set)
    folder_walks: dict[str, FolderWalk] = field(default_factory=dict)
    resume_listings: dict[str, ResumeListing] = field(default_factory=dict)


class TelegramStore:
    def __init__(self, clock: FakeClock | None = None) -> None:
        self.clock = clock or FakeClock()
        self.tables = Tables()
        self.locks: set[str] = set()
        self.commits = 0
        self.rollbacks = 0
        self.fail_commits = False  # commits raise, as a lost connection would
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        return next(self._ids)

    def unit_of_work(self) -> InMemoryTelegramUnitOfWork:
        return InMemoryTelegramUnitOfWork(self)


class _Repository:
    def __init__(self, uow: InMemoryTelegramUnitOfWork) -> None:
        self._uow = uow
        self._store = uow.store

    @property
    def _t(self) -> Tables:
        return self._store.tables

    def _write(self) -> Tables:
        self._uow.dirty = True
        return self._store.tables


class FakeTopics(_Repository):
    def register(self, kind: str, ref_id: str, chat_id: int, topic_id: int, title: str) -> Topic:
        return self._write().topics.setdefault((kind, ref_id), Topic(kind, ref_id, chat_id, topic_id, title,
                                                                     "open"))

    def by_ref(self, kind: str, ref_id: str) -> Topic | None:
        return self._t.topics.get((kind, ref_id))

    def by_thread(self, chat_id: int, topic_id: int) -> Topic | None:
        found = [t for t in self._t.topics.values() if (t.chat_id, t.topic_id) == (chat_id, topic_id)]
        return found[-1] if found else None

    def mark_closed(self, kind: str, ref_id: str) -> None:
        topic = self._t.topics.get((kind, ref_id))
        if topic is not None:
            self._write().topics[(kind, ref_id)] = replace(topic, status="closed")


class FakeOutbox(_Repository):
    def enqueue(self, stream: str, chat_id: int, topic_id: int, items: Sequence[OutboxItem]) -> None:
        for kind, body, position in items:
            row = OutboxRow(self._store.next_id(), chat_id, topic_id, kind, body)
            self._write().outbox.append(_Pending(stream, row, position, self._store.clock.now()))

    def try_lock(self, stream: str) -> bool:
        if stream in self._store.locks:
            return False
        self._store.locks.add(stream)
        self._uow.held.append(stream)
        return True

    def state(self, stream: str) -> StreamState:
        return self._t.streams.get(stream, StreamState(None, None))

    def pending(self, stream: str, limit: int = 100) -> list[OutboxRow]:
        mine = [p for p in self._t.outbox if p.stream == stream]
        mine.sort(key=lambda p: (p.position is None, p.position or 0, p.row.id))
        return [p.row for p in mine[:limit]]

    def delivered(self, stream: str, ids: Sequence[int]) -> None:
        tables = self._write()
        tables.outbox = [p for p in tables.outbox if p.row.id not in set(ids)]
        tables.streams[stream] = replace(self.state(stream), last_flush_at=self._store.clock.now())

    def defer(self, stream: str, seconds: float) -> None:
        not_before = self._store.clock.now() + timedelta(seconds=seconds)
        self._write().streams[stream] = replace(self.state(stream), not_before=not_before)

    def drop(self, stream: str) -> int:
        tables = self._write()
        before = len(tables.outbox)
        tables.outbox = [p for p in tables.outbox if p.stream != stream]
        return before - len(tables.outbox)

    def stalled_streams(self, older_than_s: float, limit: int = 100) -> list[str]:
        cutoff = self._store.clock.now() - timedelta(seconds=older_than_s)
        oldest: dict[str, datetime] = {}
        for p in self._t.outbox:
            oldest[p.stream] = min(oldest.get(p.stream, p.created_at), p.created_at)
        return [s for s, at in oldest.items() if at < cutoff][:limit]


class FakeReminders(_Repository):
    def add(self, chat_id: int, topic_id: int, user_id: int, message: str, due_at: datetime) -> int:
        reminder = DueReminder(self._store.next_id(), chat_id, topic_id, user_id, message, due_at, 0)
        self._write().reminders[reminder.id] = (reminder, False)
        return reminder.id

    def take_due(self, limit: int = 50) -> list[DueReminder]:
        now = self._store.clock.now()
        due = sorted((r for r, sent in self._t.reminders.values() if not sent and r.due_at <= now),
                     key=lambda r: r.due_at)[:limit]
        taken = [replace(r, attempts=r.attempts + 1) for r in due]
        for r in taken:
            self._write().reminders[r.id] = (r, True)
        return taken

    def release(self, reminder_id: int) -> bool:
        reminder, _ = self._t.reminders[reminder_id]
        if reminder.attempts >= MAX_ATTEMPTS:
            return False
        self._write().reminders[reminder_id] = (reminder, False)
        return True

    def pending_for(self, user_id: int, limit: int = 20) -> list[DueReminder]:
        mine = [r for r, sent in self._t.reminders.values() if not sent and r.user_id == user_id]
        return sorted(mine, key=lambda r: r.due_at)[:limit]


class FakeSessionRequests(_Repository):
    def add(self, request: SessionRequestRow) -> None:
        self._write().session_requests[request.id] = (request, False)

    def choose(self, request_id: str) -> SessionRequestRow | None:
        request, chosen = self._t.session_requests.get(request_id, (None, True))
        if request is None or chosen:
            return None
        self._write().session_requests[request_id] = (request, True)
        return request

    def attach_session(self, request_id: str, session_id: str) -> None:
        self._write()


class FakeFolderWalks(_Repository):
    def add(self, walk: FolderWalk) -> None:
        self._write().folder_walks[walk.request_id] = walk

    def by_thread(self, chat_id: int, topic_id: int) -> FolderWalk | None:
        return next((w for w in self._t.folder_walks.values()
                     if (w.chat_id, w.topic_id) == (chat_id, topic_id) and w.status == "walking"), None)

    def by_listing(self, listing_id: str) -> FolderWalk | None:
        return next((w for w in self._t.folder_walks.values() if w.listing_id == listing_id), None)

    def asked(self, request_id: str, listing_id: str) -> None:
        walks = self._write().folder_walks
        walks[request_id] = replace(walks[request_id], listing_id=listing_id)

    def listed(self, request_id: str, path: str, parent: str | None, entries: Sequence[Mapping[str, Any]],
               total: int, offset: int) -> None:
        walks = self._write().folder_walks
        walks[request_id] = replace(walks[request_id], path=path, parent=parent, entries=tuple(entries),
                                    total=total, offset=offset)

    def started(self, request_id: str) -> bool:
        walk = self._t.folder_walks.get(request_id)
        if walk is None or walk.status != "walking":
            return False
        self._write().folder_walks[request_id] = replace(walk, status="started")
        return True


class FakeResumeListings(_Repository):
    def add(self, listing: ResumeListing) -> None:
        self._write().resume_listings[listing.id] = listing

    def get(self, listing_id: str) -> ResumeListing | None:
        return self._t.resume_listings.get(listing_id)

    def listed(self, listing_id: str, path: str, sessions: Sequence[Mapping[str, Any]]) -> None:
        listing = self._t.resume_listings.get(listing_id)
        if listing is not None and listing.status == "asked":
            self._write().resume_listings[listing_id] = replace(listing, path=path, sessions=tuple(sessions),
                                                                status="listed")

    def chosen(self, listing_id: str) -> bool:
        listing = self._t.resume_listings.get(listing_id)
        if listing is None or listing.status != "listed":
            return False
        self._write().resume_listings[listing_id] = replace(listing, status="chosen")
        return True


class FakeClaims(_Repository):
    def claim(self, consumer: str, key: str) -> bool:
        if (consumer, key) in self._t.processed:
            return False
        self._write().processed.add((consumer, key))
        return True


class InMemoryTelegramUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, store: TelegramStore) -> None:
        super().__init__()
        self.store = store
        self.dirty = False
        self.held: list[str] = []
        self._snapshot: Tables | None = None
        # typed as the port's repositories: the unit is used wherever a TelegramUnitOfWork is
        self.topics: ports.TopicRepository = FakeTopics(self)
        self.outbox: ports.OutboxRepository = FakeOutbox(self)
        self.reminders: ports.ReminderRepository = FakeReminders(self)
        self.session_requests: ports.SessionRequestRepository = FakeSessionRequests(self)
        self.folder_walks: ports.FolderWalkRepository = FakeFolderWalks(self)
        self.resume_listings: ports.ResumeListingRepository = FakeResumeListings(self)
        self.processed: ports.ProcessedKeys = FakeClaims(self)

    def __enter__(self) -> Self:
        self._snapshot = copy.deepcopy(self.store.tables)
        return super().__enter__()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.dirty and not self.committed:
            assert self._snapshot is not None
            self.store.tables = self._snapshot
            self.store.rollbacks += 1
        self.store.locks.difference_update(self.held)
        self.held.clear()
        super().__exit__(exc_type, exc, tb)

    def commit(self) -> None:
        if self.store.fail_commits:
            raise ConnectionError("the commit failed")
        super().commit()
        self.store.commits += 1
