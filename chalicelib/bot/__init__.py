"""The Telegram bot: python-telegram-bot handlers (one function per command, one table), the
allow-list guard, the error handler, and the per-process runtime that runs them."""
