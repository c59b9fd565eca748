"""The fake Bot API's files and the fake OpenAI transcriptions refuse what the real services refuse,
driven by the real python-telegram-bot and openai clients."""

from __future__ import annotations

import asyncio

import openai
import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.fakes.fake_openai import FakeOpenAI
from tests.fakes.fake_telegram import FakeTelegram
from tests.fakes.telegram_files import MAX_DOWNLOAD_BYTES


def test_a_file_is_handed_over_by_get_file_and_its_link_but_not_over_twenty_megabytes() -> None:
    with FakeTelegram() as fake:
        small = fake.upload(b"screenshot bytes", suffix=".png")
        big = fake.upload(b"\0" * (MAX_DOWNLOAD_BYTES + 1))
        bot = Bot(fake.token, base_url=fake.base_url, base_file_url=f"{fake.url}/file/bot")

        async def fetch(file_id: str) -> bytes:
            async with bot:
                return bytes(await (await bot.get_file(file_id)).download_as_bytearray())

        assert asyncio.run(fetch(small["file_id"])) == b"screenshot bytes"
        with pytest.raises(BadRequest, match=r"(?i)file is too big"):
            asyncio.run(fetch(big["file_id"]))
        with pytest.raises(BadRequest, match=r"(?i)invalid file_id"):
            asyncio.run(fetch("no-such-file"))


def test_a_transcription_needs_a_key_a_file_and_a_speech_model() -> None:
    with FakeOpenAI() as fake:
        client = openai.OpenAI(api_key="sk-test", base_url=f"{fake.url}/v1", max_retries=0)
        heard = client.audio.transcriptions.create(model="whisper-1", file=("v.ogg", b"run the tests"))
        assert heard.text == "run the tests"
        with pytest.raises(openai.BadRequestError, match="Invalid model"):
            client.audio.transcriptions.create(model="gpt-4o-mini", file=("v.ogg", b"x"))
        with pytest.raises(openai.BadRequestError, match="you must provide a model"):
            client.audio.transcriptions.create(model="", file=("v.ogg", b"x"))
        anonymous = openai.OpenAI(api_key="sk-test", base_url=f"{fake.url}/v1", max_retries=0,
                                  default_headers={"Authorization": ""})
        with pytest.raises(openai.AuthenticationError):
            anonymous.audio.transcriptions.create(model="whisper-1", file=("v.ogg", b"x"))
