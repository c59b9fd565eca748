"""One python-telegram-bot Application per process, on one persistent event loop.

A Lambda container (or `itachi up`) keeps the loop in a daemon thread for its lifetime, so a
warm update costs a few milliseconds instead of an `async with app:` (getMe and a fresh HTTP
pool) per update. Synchronous callers hand coroutines to the loop and wait for the result.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from telegram import Bot, Update
from telegram.ext import Application

T = TypeVar("T")
AnyApplication = Application[Any, Any, Any, Any, Any, Any]


class BotRuntime:
    def __init__(self, build_application: Callable[[], AnyApplication], *, timeout_s: float = 60.0) -> None:
        self._build = build_application
        self._timeout = timeout_s
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._app: AnyApplication | None = None

    @property
    def started(self) -> bool:
        return self._app is not None

    def start(self) -> None:
        """Start the loop and initialise the bot (getMe) if not done yet; raise if Telegram is unreachable."""
        self._ensure_started()

    def _ensure_started(self) -> tuple[asyncio.AbstractEventLoop, AnyApplication]:
        if self._app is None or self._loop is None:
            with self._lock:
                if self._app is None:
                    loop = asyncio.new_event_loop()
                    thread = threading.Thread(target=loop.run_forever, name="telegram-loop", daemon=True)
                    thread.start()
                    app = self._build()
                    try:
                        asyncio.run_coroutine_threadsafe(app.initialize(), loop).result(self._timeout)
                    except BaseException:
                        loop.call_soon_threadsafe(loop.stop)
                        raise
                    self._loop, self._thread, self._app = loop, thread, app
        assert self._loop is not None and self._app is not None
        return self._loop, self._app

    def run(self, work: Callable[[AnyApplication], Awaitable[T]], timeout_s: float | None = None) -> T:
        """Run `work(application)` on the loop and return its result (exceptions propagate)."""
        loop, app = self._ensure_started()
        if threading.current_thread() is self._thread:
            raise RuntimeError("BotRuntime.run called from its own loop; await the coroutine instead")
        future = asyncio.run_coroutine_threadsafe(_as_coroutine(work(app)), loop)
        return future.result(timeout_s or self._timeout)

    @property
    def bot(self) -> Bot:
        """The application's Bot, for coroutines already running on the loop (the handlers)."""
        return self._ensure_started()[1].bot

    def process(self, update: Mapping[str, Any]) -> None:
        """Run the handlers for one update (a dict as Telegram sent it)."""

        async def handle(app: AnyApplication) -> None:
            await app.process_update(Update.de_json(dict(update), app.bot))

        self.run(handle)

    def close(self) -> None:
        with self._lock:
            loop, app, thread = self._loop, self._app, self._thread
            self._loop = self._app = self._thread = None
        if loop is None or app is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(app.shutdown(), loop).result(10)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(timeout=5)
            loop.close()


async def _as_coroutine(awaitable: Awaitable[T]) -> T:
    return await awaitable
