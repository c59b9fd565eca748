"""Run one hook: configuration, deadline, the local log line and the fail-open wrapper."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from functools import cached_property
from pathlib import Path

from chalicelib.contracts.local_home import ClientConfig, itachi_home, load_client_config
from hooks.api_client import ApiClient

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any, NoReturn

    Payload = dict[str, Any]

LOG_MAX_BYTES = 1_000_000
GRACE_S = 0.12  # hard stop after the soft deadline, for work that ignores it


class HookConfig(ClientConfig):
    """Where the API is and who is calling it."""

    __slots__ = ("client", "enabled")

    def __init__(self, home: Path, api_url: str, api_key: str, client: str = "claude",
                 enabled: bool = True) -> None:
        super().__init__(home, api_url, api_key)
        self.client = client
        self.enabled = enabled

    def __repr__(self) -> str:  # never print the key
        return f"HookConfig(home={self.home!r}, api_url={self.api_url!r}, client={self.client!r})"


def load_config(argv: list[str], env: Mapping[str, str] = os.environ) -> HookConfig:
    """The client config ($ITACHI_HOME/config.json and its overrides), the client and the switch."""
    base = load_client_config(env=env)
    client = env.get("ITACHI_CLIENT") or "claude"
    if "--itachi-client" in argv[:-1]:
        client = argv[argv.index("--itachi-client") + 1]
    return HookConfig(base.home, base.api_url, base.api_key, client=client,
                      enabled=env.get("ITACHI_ENABLED", "1") != "0")


class Deadline:
    """A point in monotonic time that every network wait is measured against."""

    def __init__(self, seconds: float, start: float | None = None) -> None:
        self.start = time.monotonic() if start is None else start
        self.end = self.start + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)


class HookContext:
    """Everything a hook handler needs: its payload, config, deadline and API client."""

    def __init__(
        self, name: str, config: HookConfig, deadline: Deadline, payload: Payload, argv: list[str]
    ) -> None:
        self.name = name
        self.config = config
        self.deadline = deadline
        self.payload = payload
        self.argv = argv
        self.notes: list[str] = []  # short facts for the log line: never payload contents

    @property
    def cwd(self) -> str:
        return str(self.payload.get("cwd") or os.getcwd())

    @property
    def session_id(self) -> str:
        return str(self.payload.get("session_id") or "")

    @cached_property
    def project(self) -> str:
        from chalicelib.contracts.project_identity import project_for

        return project_for(self.cwd)

    @cached_property
    def api(self) -> ApiClient:
        return ApiClient(self)


def read_payload(raw: bytes) -> Payload:
    """Decode the hook's stdin; anything that is not a JSON object becomes {}."""
    try:
        value = json.loads(raw.decode("utf-8", errors="replace") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def context_output(event_name: str, text: str) -> str:
    """Render the additionalContext JSON that Claude Code, Codex and Gemini accept."""
    output = {"hookEventName": event_name, "additionalContext": text}
    return json.dumps({"hookSpecificOutput": output}) + "\n"


def write_log(home: Path, line: str) -> None:
    """Append one line to $ITACHI_HOME/logs/hooks.log (never payloads, prompts or keys)."""
    try:
        path = home / "logs" / "hooks.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, path.with_suffix(".log.1"))
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{stamp} pid={os.getpid()} {line}\n")
    except OSError:
        pass


Handler = Callable[[HookContext], "str | None"]


def fail_open(name: str, handler: Handler, *, budget_s: float, replay_limit: int = 5) -> NoReturn:
    """Run handler within budget_s and always exit 0: errors and overruns only leave a log line."""
    deadline = Deadline(budget_s)
    argv = sys.argv[1:]
    state: dict[str, Any] = {"status": "deadline", "output": "", "home": None, "notes": []}
    with contextlib.suppress(RuntimeError):  # no home directory at all: run without a log
        state["home"] = itachi_home()

    def work() -> None:
        try:
            config = load_config(argv)
            state["home"] = config.home
            if not config.enabled:
                state["status"] = "disabled"
                return
            payload = read_payload(sys.stdin.buffer.read())
            ctx = HookContext(name, config, deadline, payload, argv)
            state["notes"] = ctx.notes
            state["output"] = handler(ctx) or ""
            if "api" in ctx.__dict__ and ctx.api.reachable and replay_limit:
                ctx.api.replay(replay_limit)
            state["status"] = "ok"
        except BaseException as exc:  # fail open: the user's session must never break
            state["status"] = f"error:{type(exc).__name__}"

    try:
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        worker.join(budget_s + GRACE_S)
        if state["output"]:
            sys.stdout.write(state["output"])
            sys.stdout.flush()
        if state["home"] is not None:
            notes = " ".join(list(state["notes"]))
            line = f"{name} {state['status']} ms={deadline.elapsed_ms()} {notes}"
            write_log(state["home"], line.rstrip())
    finally:
        os._exit(0)
