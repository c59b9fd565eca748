"""A value built on first use, once, however many threads ask for it at the same moment.

Clients, pools and models are created lazily (nothing does I/O at import time, and a Lambda
pays only for what its requests use); this is the one place that double-checked locking lives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Lazy(Generic[T]):
    """`get()` builds the value with `build` the first time and returns the same one afterwards."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._built = False
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        return self._built

    def get(self) -> T:
        if not self._built:
            with self._lock:
                if not self._built:
                    self._value = self._build()
                    self._built = True
        return self._value  # type: ignore[return-value]

    def reset(self) -> T | None:
        """Forget the value (the next `get` builds a new one); return it, if there was one, to close."""
        with self._lock:
            value, self._value, self._built = self._value, None, False
        return value
