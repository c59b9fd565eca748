"""POST /webhooks/github over real HTTP: signatures, replays, which deliveries start a task, and the
back-link comment the fake GitHub server receives."""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.contracts.project_identity import normalise_remote_url
from tests.fakes.fake_github import TOKEN, FakeGitHub
from tests.support.local_stack import make_container, settings_for_test
from tests.support.telegram_bot import GROUP, BotHarness, bot_harness

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "github"
SECRET = "webhook-secret-for-tests"
PROJECT = "github.com/acme/billing"


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def signed(body: bytes, secret: str = SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Hook:
    def __init__(self, url: str, container: Container) -> None:
        self.url = f"{url}/webhooks/github"
        self.container = container

    def post(self, event: str, body: bytes, *, signature: str | None, delivery: str | None = None,
             ) -> tuple[int, dict[str, Any]]:
        headers = {"Content-Type": "application/json", "X-GitHub-Event": event,
                   "X-GitHub-Delivery": delivery or str(uuid.uuid4())}
        if signature is not None:
            headers["X-Hub-Signature-256"] = signature
        request = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def deliver(self, event: str, payload: dict[str, Any], delivery: str | None = None,
                ) -> tuple[int, dict[str, Any]]:
        body = json.dumps(payload).encode()
        return self.post(event, body, signature=signed(body), delivery=delivery)

    def tasks(self) -> list[Any]:
        return self.container.tasks.list_tasks(project=PROJECT)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def _serve(container: Container) -> Iterator[Hook]:
    from app import app
    from infra.local.api_server import ApiServer

    server = ApiServer(app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    try:
        yield Hook(server.url, container)
    finally:
        server.stop()


@pytest.fixture
def hook(tmp_path: Path, database_url: str, moto_endpoint: str, github: FakeGitHub) -> Iterator[Hook]:
    settings = settings_for_test(tmp_path / "home", database_url, moto_endpoint, github_webhook_secret=SECRET,
                                 github_token=TOKEN, github_api_url=github.api_url,
                                 public_url="https://itachi.example.com")
    container = make_container(settings)
    set_container(container)
    try:
        yield from _serve(container)
    finally:
        set_container(None)
        container.close()


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str, github: FakeGitHub) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint, github_webhook_secret=SECRET,
                     github_token=TOKEN, github_api_url=github.api_url) as harness:
        yield harness


@pytest.fixture
def hook_with_telegram(bot: BotHarness) -> Iterator[Hook]:
    yield from _serve(bot.container)


def test_a_labelled_issue_with_a_valid_signature_creates_exactly_one_task(hook: Hook) -> None:
    status, answer = hook.deliver("issues", fixture("issues_labeled"))

    assert status == 200 and answer["duplicate"] is False
    [task] = hook.tasks()
    assert task.id == answer["task_id"]
    assert task.project == normalise_remote_url("git@github.com:Acme/Billing.git")
    assert "Invoices round totals down" in task.description
    assert "10.005 shows 10.00" in task.description


def test_a_replayed_delivery_creates_nothing_more_and_comments_once(hook: Hook, github: FakeGitHub) -> None:
    delivery = str(uuid.uuid4())
    first = hook.deliver("issues", fixture("issues_labeled"), delivery)
    again = hook.deliver("issues", fixture("issues_labeled"), delivery)

    assert first[0] == again[0] == 200
    assert again[1] == {"ok": True, "task_id": first[1]["task_id"], "duplicate": True, "commented": False}
    assert len(hook.tasks()) == 1
    assert len(github.comments) == 1


@pytest.mark.parametrize("how", ["wrong secret", "missing", "body changed after signing", "not sha256"])
def test_a_bad_signature_is_refused_and_creates_nothing(hook: Hook, github: FakeGitHub, how: str) -> None:
    body = json.dumps(fixture("issues_labeled")).encode()
    signature = {"wrong secret": signed(body, "another-secret"), "missing": None,
                 "body changed after signing": signed(body),
                 "not sha256": "sha1=" + hmac.new(SECRET.encode(), body, hashlib.sha1).hexdigest()}[how]
    if how == "body changed after signing":
        body = body.replace(b"Invoices round totals down", b"Delete the production database")

    status, answer = hook.post("issues", body, signature=signature)

    assert status == 401 and answer["error"] == "unauthorized"
    assert "X-Hub-Signature-256" in answer["message"]
    assert hook.tasks() == [] and github.comments == []


def test_a_comment_mentioning_itachi_creates_a_task_with_the_comment(hook: Hook) -> None:
    status, answer = hook.deliver("issue_comment", fixture("issue_comment_created"))

    assert status == 200
    [task] = hook.tasks()
    assert task.id == answer["task_id"]
    assert "pull request Acme/Billing#43: Round half up in invoice totals" in task.description
    assert "please add a test for 10.005" in task.description


def test_a_comment_without_the_mention_creates_nothing(hook: Hook, github: FakeGitHub) -> None:
    payload = fixture("issue_comment_created")
    payload["comment"]["body"] = "Looks good to me; itachi@example.com may review too"

    status, answer = hook.deliver("issue_comment", payload)

    assert status == 200 and answer == {"ok": True, "ignored": "issue_comment"}
    assert hook.tasks() == [] and github.comments == []


def test_another_label_or_event_is_acknowledged_and_ignored(hook: Hook) -> None:
    other_label = fixture("issues_labeled")
    other_label["label"]["name"] = "bug"

    assert hook.deliver("issues", other_label)[1] == {"ok": True, "ignored": "issues"}
    assert hook.deliver("ping", {"zen": "Keep it logically awesome.", "hook_id": 1})[1] == {
        "ok": True, "ignored": "ping"}
    assert hook.deliver("push", {"ref": "refs/heads/main"})[1] == {"ok": True, "ignored": "push"}
    assert hook.tasks() == []


def test_the_fake_github_receives_the_back_link_comment_with_the_token(hook: Hook,
                                                                       github: FakeGitHub) -> None:
    status, answer = hook.deliver("issues", fixture("issues_labeled"))

    assert status == 200 and answer["commented"] is True
    [comment] = github.comments
    assert comment["repository"] == "Acme/Billing" and comment["number"] == 42
    assert answer["task_id"] in comment["body"]
    assert f"https://itachi.example.com/console/tasks/{answer['task_id']}" in comment["body"]
    assert "@itachi" not in comment["body"]


def test_a_back_link_github_refuses_leaves_the_task_in_place(hook: Hook, github: FakeGitHub) -> None:
    github.token = "ghp_another_token"  # GitHub no longer accepts the configured token

    status, answer = hook.deliver("issues", fixture("issues_labeled"))

    assert status == 200 and answer["commented"] is False
    assert len(hook.tasks()) == 1 and github.comments == []


def test_without_a_configured_secret_every_delivery_is_refused(hook: Hook) -> None:
    unset = make_container(hook.container.settings.replace(github_webhook_secret=""), with_queues=False)
    set_container(unset)
    try:
        status, _ = hook.deliver("issues", fixture("issues_labeled"))
    finally:
        set_container(hook.container)
        unset.close()

    assert status == 401 and hook.tasks() == []


def test_with_a_supergroup_the_task_gets_a_topic_and_the_issue_its_link(
        hook_with_telegram: Hook, bot: BotHarness, github: FakeGitHub) -> None:
    delivery = str(uuid.uuid4())
    status, answer = hook_with_telegram.deliver("issues", fixture("issues_labeled"), delivery)
    hook_with_telegram.deliver("issues", fixture("issues_labeled"), delivery)  # a replay opens nothing more
    bot.flush()

    assert status == 200 and answer["commented"] is True
    [thread] = [thread for (chat, thread) in bot.fake.topics if chat == GROUP]
    assert bot.fake.topics[(GROUP, thread)]["name"] == "github.com/acme/billing: Invoices round totals down"
    [task] = hook_with_telegram.tasks()
    assert (task.telegram_chat_id, task.telegram_topic_id) == (GROUP, thread)
    assert any("queued" in text for text in bot.texts(chat_id=GROUP, thread_id=thread))
    [comment] = github.comments
    assert f"https://t.me/c/{str(GROUP)[4:]}/{thread}" in comment["body"]
