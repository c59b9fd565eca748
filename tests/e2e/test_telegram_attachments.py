"""End to end: photos, archives and voice notes sent to a session's topic.

`itachi up`'s stack in this process with its real agent subprocess and the fake Claude Code
engine; Telegram is the fake Bot API (files served by getFile and /file/bot<token>/...), the
transcription service the fake OpenAI server. Every update arrives on the webhook.
"""

from __future__ import annotations

import io
import json
import stat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.fakes.fake_openai import FakeOpenAI
from tests.fakes.fake_telegram import FakeTelegram
from tests.support.agent_harness import make_repo
from tests.support.orchestration import wait_for
from tests.support.telegram_bot import GROUP, message_update
from tests.support.telegram_stack import TelegramStack, telegram_stack

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def file_update(thread: int, caption: str = "", **content: Any) -> dict[str, Any]:
    """A message in the topic carrying a photo, document or voice note instead of text."""
    update = message_update("placeholder", thread_id=thread)
    message = update["message"]
    del message["text"]
    if caption:
        message["caption"] = caption
    message.update(content)
    return update


def document(fake: FakeTelegram, name: str, content: bytes, mime: str) -> dict[str, Any]:
    uploaded = fake.upload(content, suffix=Path(name).suffix)
    return {"document": {**uploaded, "file_name": name, "mime_type": mime}}


def photo(fake: FakeTelegram, content: bytes) -> dict[str, Any]:
    uploaded = fake.upload(content, folder="photos", suffix=".jpg")
    return {"photo": [{**uploaded, "width": 90, "height": 90}]}


def voice(fake: FakeTelegram, spoken: bytes) -> dict[str, Any]:
    return {"voice": {**fake.upload(spoken, folder="voice", suffix=".oga"), "duration": 3,
                      "mime_type": "audio/ogg"}}


def zipped(entries: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


@contextmanager
def session_topic(tmp_path: Path, database_url: str, **env: str) -> Iterator[tuple[TelegramStack, int, Path]]:
    """A Claude session started from Telegram in a repo; yields the stack, its topic and the repo."""
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}", **env) as t:
        t.post(message_update("/session laptop myproject: look at what I send"))
        t.press("itachi --ds")
        thread = t.topic()
        wait_for(lambda: any("echo: look at what I send" in s for s in t.fake.sent_texts(GROUP, thread)),
                 timeout_s=60, what="the first turn's answer")
        yield t, thread, repo


def turns(tmp_path: Path) -> list[str]:
    lines = (tmp_path / "engine.log").read_text().splitlines() if (tmp_path / "engine.log").exists() else []
    return [e["prompt"] for e in map(json.loads, lines) if e["event"] == "turn"]


def test_a_photo_and_a_zip_land_in_the_worktree_and_the_next_turn_names_them(
        tmp_path: Path, database_url: str) -> None:
    with session_topic(tmp_path, database_url) as (t, thread, repo):
        shot = photo(t.fake, PNG)
        t.post(file_update(thread, "what is wrong on this screen?", **shot))
        t.post(file_update(thread, **document(t.fake, "logs.zip", zipped({"logs/app.log": b"boom\n"}),
                                              "application/zip")))
        wait_for(lambda: len(turns(tmp_path)) >= 3, timeout_s=60, what="both file turns")
        prompts = turns(tmp_path)

    photo_name = f"photo-{shot['photo'][0]['file_unique_id']}.jpg"
    assert prompts[1] == (f"Attached: itachi-attachments/{photo_name}\n\nwhat is wrong on this screen?")
    assert prompts[2] == "Attached: itachi-attachments/logs"
    assert (repo / "itachi-attachments" / photo_name).read_bytes() == PNG
    assert (repo / "itachi-attachments" / "logs" / "logs" / "app.log").read_text() == "boom\n"


def test_an_archive_that_climbs_out_or_holds_a_link_is_refused_in_the_topic(
        tmp_path: Path, database_url: str) -> None:
    with session_topic(tmp_path, database_url) as (t, thread, repo):
        t.post(file_update(thread, **document(t.fake, "evil.zip", zipped({"../../outside.txt": b"x"}),
                                              "application/zip")))
        t.post(file_update(thread, **document(t.fake, "linky.zip", zipped({}, {"passwd": "/etc/passwd"}),
                                              "application/zip")))

        def story() -> str:
            return "\n".join(t.fake.sent_texts(GROUP, thread))

        wait_for(lambda: story().count("Archive refused") == 2, timeout_s=60, what="both refusals")
        sessions = t.container.agent_sessions.list_sessions()
        inputs = [e for e in t.container.agent_sessions.events(sessions[0].id) if e["kind"] == "user_input"]

    assert "❌ Archive refused: zip: ../../outside.txt climbs out of the archive (..)" in story()
    assert "❌ Archive refused: passwd is a link or a special file" in story()
    assert len(inputs) == 1  # only the first turn: neither archive reached the session
    assert not (repo / "itachi-attachments").exists()
    assert not (tmp_path / "outside.txt").exists()


def test_a_voice_note_is_transcribed_echoed_and_sent_as_the_next_turn(
        tmp_path: Path, database_url: str) -> None:
    with FakeOpenAI() as openai, session_topic(tmp_path, database_url, OPENAI_API_KEY="sk-test",
                                               OPENAI_BASE_URL=f"{openai.url}/v1",
                                               ITACHI_EMBEDDING_PROVIDER="local") as (t, thread, _):
        t.post(file_update(thread, **voice(t.fake, b"please run the tests")))
        wait_for(lambda: "please run the tests" in turns(tmp_path), timeout_s=60, what="the spoken turn")
        texts = t.fake.sent_texts(GROUP, thread)
        asked = openai.requests_to("/v1/audio/transcriptions")

    assert "🎙 please run the tests" in texts
    assert asked == [{"model": "whisper-1", "file_name": "voice.ogg", "size": len(b"please run the tests")}]


def test_a_voice_note_without_a_transcription_key_is_refused(tmp_path: Path, database_url: str) -> None:
    with session_topic(tmp_path, database_url, OPENAI_API_KEY="") as (t, thread, _):
        t.post(file_update(thread, **voice(t.fake, b"please run the tests")))
        wait_for(lambda: any(s.startswith("🎙 Voice notes need a transcription service")
                             for s in t.fake.sent_texts(GROUP, thread)), timeout_s=60, what="the refusal")
        sessions = t.container.agent_sessions.list_sessions()
        inputs = [e for e in t.container.agent_sessions.events(sessions[0].id) if e["kind"] == "user_input"]

    assert len(inputs) == 1
    assert "please run the tests" not in turns(tmp_path)


@contextmanager
def task_topic(tmp_path: Path, database_url: str, **env: str) -> Iterator[tuple[TelegramStack, int]]:
    """A slow Claude task started from Telegram, its engine at work; yields the stack and its topic."""
    repo = make_repo(tmp_path / "myproject")
    with telegram_stack(tmp_path, database_url, ITACHI_AGENT_REPOS=f"myproject={repo}", **env) as t:
        t.post(message_update("/task myproject look at what I send [fake:sleep=12]"))
        thread = t.topic()
        wait_for(lambda: any("look at what I send" in (e.get("prompt") or "")
                             for e in engine_events(tmp_path)), timeout_s=60, what="the engine at work")
        yield t, thread


def engine_events(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "engine.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def task_messages(tmp_path: Path) -> list[str]:
    """What the task's engine was given after its prompt: steered into its turn, or a later turn."""
    return [e["prompt"] for e in engine_events(tmp_path)
            if e["event"] in ("steered", "turn", "start") and e["prompt"]
            and "look at what I send" not in e["prompt"]]


def finished(t: TelegramStack, thread: int) -> str:
    return wait_for(lambda: (texts := t.fake.sent_texts(GROUP, thread)) and "✅ Completed" in texts[-1]
                    and "\n".join(texts), timeout_s=90, what="the task's result in its topic")


def test_a_photo_and_a_zip_in_a_running_tasks_topic_land_in_its_worktree_and_reach_its_engine(
        tmp_path: Path, database_url: str) -> None:
    with task_topic(tmp_path, database_url) as (t, thread):
        shot = photo(t.fake, PNG)
        t.post(file_update(thread, "what is wrong on this screen?", **shot))
        t.post(file_update(thread, **document(t.fake, "logs.zip", zipped({"logs/app.log": b"boom\n"}),
                                              "application/zip")))
        story = finished(t, thread)
        (task,) = t.container.tasks.list_tasks()
        events = t.container.tasks.events(task.id)

    photo_name = f"photo-{shot['photo'][0]['file_unique_id']}.jpg"
    attached = f"Attached: itachi-attachments/{photo_name}"
    assert task_messages(tmp_path) == [f"{attached}\n\nwhat is wrong on this screen?",
                                       "Attached: itachi-attachments/logs"]
    assert f"📨 delivered into the running turn: {attached} what is wrong on this screen?" in story
    (workspace,) = [e.data["worktree"] for e in events if e.kind == "workspace"]
    worktree = Path(workspace)
    assert (worktree / "itachi-attachments" / photo_name).read_bytes() == PNG
    assert (worktree / "itachi-attachments" / "logs" / "logs" / "app.log").read_text() == "boom\n"
    messages = [e for e in events if e.kind == "user_input"]
    assert [[f["name"] for f in e.data["files"]] for e in messages] == [[photo_name], ["logs.zip"]]
    assert not any(f.startswith("itachi-attachments") for f in task.files_changed or [])  # never committed


def test_a_voice_note_in_a_running_tasks_topic_is_transcribed_echoed_and_reaches_its_engine(
        tmp_path: Path, database_url: str) -> None:
    with FakeOpenAI() as openai, task_topic(tmp_path, database_url, OPENAI_API_KEY="sk-test",
                                            OPENAI_BASE_URL=f"{openai.url}/v1",
                                            ITACHI_EMBEDDING_PROVIDER="local") as (t, thread):
        t.post(file_update(thread, **voice(t.fake, b"please run the tests")))
        story = finished(t, thread)

    assert task_messages(tmp_path) == ["please run the tests"]
    assert "🎙 please run the tests" in story
    assert "📨 delivered into the running turn: please run the tests" in story

