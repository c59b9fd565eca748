"""Run one hook: configuration, deadline, the local log line and the fail-open wrapper."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, NoReturn

from hooks.api_client import ApiClient
from hooks.outbox import Outbox

Payload = dict[str, Any]
DEFAULT_API_URL = "http://127.0.0.1:8787"
LOG_MAX_BYTES = 1_000_000
GRACE_S = 0.12  # hard stop after the soft deadline, for work that ignores it


def itachi_home(env: Mapping[str, str] = os.environ) -> Path:
    """Return $ITACHI_HOME or ~/.local/share/itachi."""
    explicit = env.get("ITACHI_HOME")
    return Path(explicit).expanduser() if explicit else Path.home() / ".local/share/itachi"


@dataclass(frozen=True)
class HookConfig:
    """Where the API is and who is calling it. The key is never printed (repr=False)."""

    home: Path
    api_url: str
    api_key: str = field(repr=False)
    client: str = "claude"
    enabled: bool = True


def load_config(argv: list[str], env: Mapping[str, str] = os.environ) -> HookConfig:
    """Read $ITACHI_HOME/config.json, then let ITACHI_API_URL / ITACHI_API_KEY override it."""
    home = itachi_home(env)
    stored: dict[str, Any] = {}
    try:
        loaded = json.loads((home / "config.json").read_text(encoding="utf-8"))
        stored = loaded if isinstance(loaded, dict) else {}
    except (OSError, ValueError):
        pass
    client = env.get("ITACHI_CLIENT") or "claude"
    if "--itachi-client" in argv[:-1]:
        client = argv[argv.index("--itachi-client") + 1]
    return HookConfig(
        home=home,
        api_url=(env.get("ITACHI_API_URL") or str(stored.get("api_url") or DEFAULT_API_URL)),
        api_key=env.get("ITACHI_API_KEY") or str(stored.get("api_key") or ""),
        client=client,
        enabled=env.get("ITACHI_ENABLED", "1") != "0",
    )


class Deadline:
    """A point in monotonic time that every network wait is measured against."""

    def __init__(self, seconds: float, start: float | None = None) -> None:
        self.start = time.monotonic() if start is None else start
        self.end = self.start + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def elapsed_ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)


@dataclass
class HookContext:
    """Everything a hook handler needs: its payload, config, deadline and API client."""

    name: str
    config: HookConfig
    deadline: Deadline
    payload: Payload
    argv: list[str]
    notes: list[str] = field(default_factory=list)

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
        outbox = Outbox(self.config.home / "outbox")
        return ApiClient(self.config, self.deadline, outbox, self.notes, self.name)


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
    config = load_config(argv)
    status: list[str] = ["deadline"]
    output: list[str] = []
    ctx_box: list[HookContext] = []

    def work() -> None:
        try:
            if not config.enabled:
                status[0] = "disabled"
                return
            payload = read_payload(sys.stdin.buffer.read())
            ctx = HookContext(name, config, deadline, payload, argv)
            ctx_box.append(ctx)
            text = handler(ctx)
            output.append(text or "")
            if ctx.__dict__.get("api") is not None and ctx.api.reachable and replay_limit:
                ctx.api.replay(replay_limit)
            status[0] = "ok"
        except BaseException as exc:  # fail open: the user's session must never break
            status[0] = f"error:{type(exc).__name__}"

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(budget_s + GRACE_S)
    if output and output[0]:
        sys.stdout.write(output[0])
    notes = " ".join(ctx_box[0].notes) if ctx_box else ""
    write_log(config.home, f"{name} {status[0]} ms={deadline.elapsed_ms()} {notes}".rstrip())
    sys.stdout.flush()
    os._exit(0)
