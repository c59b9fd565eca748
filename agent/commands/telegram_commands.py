"""`itachi telegram set-webhook URL` and `itachi telegram delete-webhook`.

set-webhook points the bot at a deployment's `/telegram/webhook` with a secret token. It uses
TELEGRAM_WEBHOOK_SECRET when set (the deployed secret); otherwise it generates one, stores it
in $ITACHI_HOME/telegram.json (mode 0600) and prints what the deployment must be given.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import time
from pathlib import Path
from typing import Any

from chalicelib.kernel.settings import Settings

WEBHOOK_PATH = "/telegram/webhook"
ALLOWED_UPDATES = ["message", "edited_message", "callback_query"]


def webhook_url(url: str) -> str:
    """The full webhook URL: the given one, with /telegram/webhook added when it names only the API."""
    url = url.rstrip("/")
    return url if url.endswith(WEBHOOK_PATH) else url + WEBHOOK_PATH


def new_secret() -> str:
    """A secret token as Telegram allows them: 1-256 of A-Z, a-z, 0-9, _ and -."""
    return secrets.token_urlsafe(36)


def add_telegram_parser(sub: Any) -> None:
    p = sub.add_parser("telegram", help="connect the Telegram bot (webhook or local polling)")
    verbs = p.add_subparsers(dest="telegram_command", metavar="VERB", required=True)
    hook = verbs.add_parser("set-webhook", help="register URL as the bot's webhook with a secret token")
    hook.add_argument("url", help="the API's base URL or its full /telegram/webhook URL (https)")
    hook.add_argument("--drop-pending", action="store_true", help="discard updates Telegram is holding")
    hook.set_defaults(func=cmd_set_webhook)
    delete = verbs.add_parser("delete-webhook", help="remove the webhook (itachi up then polls)")
    delete.set_defaults(func=cmd_delete_webhook)


def _bot_settings() -> Settings | None:
    settings = Settings.from_env()
    if not settings.telegram_bot_token:
        print("TELEGRAM_BOT_TOKEN is not set: create a bot with @BotFather and export its token.")
        return None
    return settings


def _run(settings: Settings, work: Any) -> Any:
    from telegram import Bot

    async def main() -> Any:
        async with Bot(settings.telegram_bot_token, base_url=settings.telegram_api_url) as bot:
            return await work(bot)

    return asyncio.run(main())


def cmd_set_webhook(args: argparse.Namespace) -> int:
    from infra.local.home import write_private_json
    from infra.local.telegram_poller import register_commands

    settings = _bot_settings()
    if settings is None:
        return 2
    url = webhook_url(args.url)
    if not url.startswith("https://") and not os.environ.get("ITACHI_ALLOW_HTTP_WEBHOOK"):
        print(f"Telegram only calls https:// webhooks; {url} is not one.")
        return 2
    generated = not settings.telegram_webhook_secret
    secret = settings.telegram_webhook_secret or new_secret()

    async def register(bot: Any) -> None:
        await bot.set_webhook(url, secret_token=secret, allowed_updates=ALLOWED_UPDATES,
                              drop_pending_updates=args.drop_pending)
        await register_commands(bot)

    _run(settings, register)
    print(f"Webhook set: {url}")
    if generated:
        home: Path = settings.home
        home.mkdir(parents=True, exist_ok=True)
        write_private_json(home / "telegram.json", {"webhook_url": url, "webhook_secret": secret,
                                                    "set_at": int(time.time())})
        print(f"A new secret token was generated and saved in {home / 'telegram.json'}.")
        print("Give the deployment the same secret, or it will refuse Telegram's calls with 401:")
        print(f"  TELEGRAM_WEBHOOK_SECRET={secret}")
        print("(in AWS: put it in the stage's TELEGRAM_WEBHOOK_SECRET secret in Secrets Manager)")
    else:
        print("Using the secret token from TELEGRAM_WEBHOOK_SECRET.")
    return 0


def cmd_delete_webhook(args: argparse.Namespace) -> int:
    settings = _bot_settings()
    if settings is None:
        return 2
    _run(settings, lambda bot: bot.delete_webhook())
    print("Webhook removed: `itachi up` with TELEGRAM_BOT_TOKEN and no TELEGRAM_WEBHOOK_SECRET "
          "polls instead.")
    return 0
