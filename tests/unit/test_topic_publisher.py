"""Task and session output reaches its topic's stream, even before the topic is registered."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import NotFound
from chalicelib.tasks.domain.agent_session_states import AgentSession
from chalicelib.tasks.domain.task_model import Task
from chalicelib.tasks.domain.task_states import TaskStatus
from chalicelib.telegram.services.telegram_publisher import TopicEventPublisher
from chalicelib.telegram.services.topic_directory import TopicDirectory
from chalicelib.telegram.services.topic_streams import StreamPacing, TopicStreams
from tests.fakes.telegram_recorders import RecordingSender, RecordingTrigger
from tests.fakes.telegram_store import TelegramStore

pytestmark = pytest.mark.unit

GROUP = -1001234567890
TASK = Task("5f0c3a9e-1111-2222-3333-444455556666", "myproject", "fix the login bug", TaskStatus.QUEUED,
            telegram_chat_id=GROUP, telegram_topic_id=42)


def find_task(ref: str) -> Task:
    if ref != TASK.id:
        raise NotFound(f"no task {ref!r}")
    return TASK


def find_session(ref: str) -> AgentSession:
    raise NotFound(f"no session {ref!r}")


class Topics:
    """A publisher over fresh in-memory tables, and a way to send what it queued."""

    def __init__(self) -> None:
        self.store = TelegramStore()
        self.sender = RecordingSender()
        self.streams = TopicStreams(self.store.unit_of_work, self.sender, RecordingTrigger(),
                                    StreamPacing(0.0, lambda s: None))
        directory = TopicDirectory(self.store.unit_of_work, find_task, find_session)
        self.publisher = TopicEventPublisher(directory, self.streams)

    def pump_all(self) -> None:
        for _ in range(10):  # one message a pump: pump until nothing is left
            for stream in self.streams.pending_streams():
                self.streams.pump(stream)


@pytest.fixture
def t() -> Topics:
    return Topics()


def test_events_before_the_topic_is_registered_go_to_the_topic_the_task_names(t: Topics) -> None:
    t.publisher.published(TASK.id, [{"kind": "created", "seq": 1},
                                    {"kind": "text", "text": "reading the code", "seq": 2}])
    t.pump_all()

    assert [(s.chat_id, s.topic_id, s.text) for s in t.sender.sent] == [
        (GROUP, 42, "Task 5f0c3a9e queued.\nreading the code")]


def test_the_result_ends_the_story_and_a_closed_topic_gets_nothing_more(t: Topics) -> None:
    with t.store.unit_of_work() as uow:
        uow.topics.register("task", TASK.id, GROUP, 42, "myproject: fix the login bug")
        uow.commit()

    t.publisher.finished(TASK.id, "completed", "Fixed.", files_changed=["src/login.py"])
    t.pump_all()
    t.publisher.published(TASK.id, [{"kind": "text", "text": "late words", "seq": 9}])
    t.pump_all()

    assert t.sender.texts() == ["✅ Completed\n\nFixed.\n\nFiles changed:\n- src/login.py"]
    assert t.sender.renamed == [(GROUP, 42, "✅ myproject: fix the login bug")]


def test_output_of_an_unknown_task_or_session_is_dropped(t: Topics) -> None:
    t.publisher.published("no-such-task", [{"kind": "text", "text": "hi"}])
    t.publisher.published("no-such-session", [{"kind": "text", "text": "hi"}], kind="session")

    assert t.streams.pending_streams() == []
