"""The local state directory and its config.json: where every client finds the API.

Stdlib only and cheap to import (no dataclasses): the hooks load it in every process, the
CLI, the agent and the server's Settings use the same functions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

DEFAULT_PORT = 8787
DEFAULT_API_URL = f"http://127.0.0.1:{DEFAULT_PORT}"


def itachi_home(explicit: str | os.PathLike[str] | None = None,
                env: Mapping[str, str] | None = None) -> Path:
    """Return the state directory: explicit (a --home option), $ITACHI_HOME, or ~/.local/share/itachi."""
    chosen = explicit or (os.environ if env is None else env).get("ITACHI_HOME")
    if chosen:
        return Path(chosen).expanduser()
    return Path.home() / ".local" / "share" / "itachi"


def read_json(path: Path) -> dict[str, Any]:
    """Return the JSON object stored at path; {} if it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class ClientConfig(NamedTuple):
    """Where the API is and the key to call it with."""

    home: Path
    api_url: str
    api_key: str

    def __repr__(self) -> str:  # never print the key
        return f"ClientConfig(home={self.home!r}, api_url={self.api_url!r})"


def load_client_config(home: Path | None = None, env: Mapping[str, str] | None = None) -> ClientConfig:
    """Read $ITACHI_HOME/config.json, then let ITACHI_API_URL / ITACHI_API_KEY override it."""
    env = os.environ if env is None else env
    home = home or itachi_home(env=env)
    stored = read_json(home / "config.json")
    return ClientConfig(
        home=home,
        api_url=(env.get("ITACHI_API_URL") or str(stored.get("api_url") or DEFAULT_API_URL)).rstrip("/"),
        api_key=env.get("ITACHI_API_KEY") or str(stored.get("api_key") or ""),
    )
