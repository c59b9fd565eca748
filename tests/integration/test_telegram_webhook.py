"""POST /telegram/webhook over real HTTP: the secret, idempotent intake, and the queue consumer."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.fakes.fake_telegram import load_update_fixture
from tests.support.telegram_bot import ALICE, SECRET, BotHarness, bot_harness

UPDATES_SPEC = next(q for q in QUEUES if q.key == "telegram-updates")


class Webhook:
    def __init__(self, url: str, bot: BotHarness) -> None:
        self.url = f"{url}/telegram/webhook"
        self.bot = bot

    def post(self, body: Any, secret: str | None = SECRET, headers: dict[str, str] | None = None,
             ) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        if secret:
            sent["X-Telegram-Bot-Api-Secret-Token"] = secret
        request = urllib.request.Request(self.url, data=data, method="POST", headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def queued(self) -> int:
        return self.bot.container.queues.depth("telegram-updates")


def _serve(bot: BotHarness) -> Iterator[Webhook]:
    from app import app
    from infra.local.api_server import ApiServer

    server = ApiServer(app, port=0, max_body_bytes=bot.container.settings.max_body_bytes)
    server.start()
    try:
        yield Webhook(server.url, bot)
    finally:
        server.stop()


@pytest.fixture
def hook(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[Webhook]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as bot:
        yield from _serve(bot)


def test_a_wrong_secret_is_refused_with_401_and_nothing_happens(hook: Webhook) -> None:
    update = load_update_fixture("private_help_command")

    assert hook.post(update, secret="not-the-secret")[0] == 401
    assert hook.post(update, secret=None)[0] == 401
    assert hook.post(update, secret=None, headers={"Authorization": "Bearer test-key"})[0] == 401

    assert hook.queued() == 0
    assert hook.post(update)[0] == 200  # the refusals recorded nothing: the real delivery is new
    assert hook.queued() == 1


def test_an_update_is_acknowledged_queued_and_answered_by_the_consumer(hook: Webhook) -> None:
    status, body = hook.post(load_update_fixture("private_help_command"))

    assert (status, body) == (200, {"ok": True, "duplicate": False})
    assert hook.bot.fake.calls_to("sendMessage") == []  # nothing ran on the request path

    assert deliver_batch(hook.bot.container.queues, UPDATES_SPEC, wait_s=1) == 1

    assert "/task [--plan] <project> <description>" in hook.bot.last_text(chat_id=ALICE)


def test_a_redelivered_update_is_acknowledged_and_has_one_effect(hook: Webhook) -> None:
    update = load_update_fixture("private_help_command")

    assert hook.post(update) == (200, {"ok": True, "duplicate": False})
    assert hook.post(update) == (200, {"ok": True, "duplicate": True})
    while deliver_batch(hook.bot.container.queues, UPDATES_SPEC, wait_s=1):
        pass

    assert len(hook.bot.texts(chat_id=ALICE)) == 1


def test_a_duplicated_queue_message_runs_the_handlers_once(hook: Webhook) -> None:
    update = load_update_fixture("private_help_command")
    for _ in range(2):  # SQS delivers at least once
        hook.bot.container.queues.send("telegram-updates", {"update": update})

    while deliver_batch(hook.bot.container.queues, UPDATES_SPEC, wait_s=1):
        pass

    assert len(hook.bot.texts(chat_id=ALICE)) == 1


def test_a_body_that_is_not_an_update_is_a_400(hook: Webhook) -> None:
    assert hook.post(b"not json")[0] == 400
    assert hook.post({"message": {}})[0] == 400
    assert hook.queued() == 0


def test_a_poison_message_is_reported_as_a_batch_failure(hook: Webhook) -> None:
    from functions.telegram_consumer import handler

    good = json.dumps({"update": load_update_fixture("private_help_command")})
    event = {"Records": [{"messageId": "m-1", "body": "{not json"}, {"messageId": "m-2", "body": good}]}

    assert handler(event, None) == {"batchItemFailures": [{"itemIdentifier": "m-1"}]}
    assert len(hook.bot.texts(chat_id=ALICE)) == 1


def test_without_a_configured_secret_every_webhook_call_is_refused(
    tmp_path: Path, database_url: str, moto_endpoint: str,
) -> None:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint, telegram_webhook_secret="") as bot:
        for webhook in _serve(bot):
            assert webhook.post(load_update_fixture("private_help_command"), secret="")[0] == 401
            assert webhook.post(load_update_fixture("private_help_command"), secret="anything")[0] == 401


def test_an_unreachable_bot_api_fails_the_message_for_a_retry_without_consuming_the_update(
    hook: Webhook,
) -> None:
    from functions.telegram_consumer import handler

    hook.bot.fake.fail_next("getMe", status=502)
    event = {"Records": [{"messageId": "m-1",
                          "body": json.dumps({"update": load_update_fixture("private_help_command")})}]}

    assert handler(event, None) == {"batchItemFailures": [{"itemIdentifier": "m-1"}]}
    assert handler(event, None) == {"batchItemFailures": []}  # SQS redelivers it later
    assert len(hook.bot.texts(chat_id=ALICE)) == 1
