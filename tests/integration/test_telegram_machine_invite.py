"""`/machines invite` through the real python-telegram-bot client against the fake Bot API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.kernel.errors import Forbidden
from tests.support.telegram_bot import ALICE, BotHarness, bot_harness, message_update


@pytest.fixture
def bot(tmp_path: Path, database_url: str, moto_endpoint: str) -> Iterator[BotHarness]:
    with bot_harness(tmp_path / "home", database_url, moto_endpoint) as harness:
        yield harness


def test_machines_invite_answers_a_join_command_whose_token_works_once(bot: BotHarness) -> None:
    bot.send(message_update("/machines invite laptop2", chat_id=ALICE))

    text = bot.last_text(chat_id=ALICE)
    assert "itachi join" in text and "works once" in text
    token = text.split("--token ", 1)[1].split()[0]
    onboarding = bot.container.machine_onboarding
    assert onboarding.join(token, None).machine_id == "laptop2"
    with pytest.raises(Forbidden):
        onboarding.join(token, None)


def test_machines_invite_with_a_bad_machine_id_says_what_is_wrong(bot: BotHarness) -> None:
    bot.send(message_update("/machines invite ../etc", chat_id=ALICE))

    assert "Cannot invite: machine_id" in bot.last_text(chat_id=ALICE)


def test_machines_invite_without_a_machine_id_asks_for_one_and_creates_no_invite(bot: BotHarness) -> None:
    bot.send(message_update("/machines invite", chat_id=ALICE))

    text = bot.last_text(chat_id=ALICE)
    assert "Cannot invite: machine_id: an invite names the machine it is for" in text
    assert "itachi join" not in text
