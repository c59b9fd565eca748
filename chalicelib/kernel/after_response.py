"""Work a request hands off until its response is out (the prompt hook's queue send, for one).

A server that writes the response before it is done with the request (the local API server)
wraps each request in `responding()`: `after_response(action)` then keeps `action`, and it runs
on the request's thread once the response has been written, whatever the response was. Where
nothing can run after the handler returns (Lambda behind API Gateway), `after_response` answers
False and the caller runs the action before answering, as it would without this module. Either
way the action runs once; a failing one is logged, never raised.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_after: ContextVar[list[Callable[[], object]] | None] = ContextVar("itachi_after_response", default=None)
_running = 0
_idle = threading.Condition()


def after_response(action: Callable[[], object]) -> bool:
    """Keep `action` for after the response; False (and nothing kept) outside `responding()`."""
    global _running
    actions = _after.get()
    if actions is None:
        return False
    if not actions:  # counted from now, not from the response: a stop may come as soon as it is out
        with _idle:
            _running += 1
    actions.append(action)
    return True


@contextmanager
def responding() -> Iterator[None]:
    """Around one request whose response is written inside the block: its actions run on exit."""
    global _running
    actions: list[Callable[[], object]] = []
    token = _after.set(actions)
    try:
        yield
    finally:
        _after.reset(token)
        if actions:
            try:
                _run(actions)
            finally:
                with _idle:
                    _running -= 1
                    _idle.notify_all()


def _run(actions: list[Callable[[], object]]) -> None:
    for action in actions:
        try:
            action()
        except Exception as exc:  # the response is out: nobody to tell but the log
            from chalicelib.kernel.logging import log_failure

            log_failure("after-response action failed", exc)


def wait_idle(timeout_s: float) -> bool:
    """Wait until no request has actions kept or running (a server stopping); True if none has."""
    deadline = time.monotonic() + timeout_s
    with _idle:
        while _running:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _idle.wait(left)
    return True
