"""The local state directory and its config.json: where every client finds the API.

Stdlib only and cheap to import (no dataclasses): the hooks load it in every process, the
CLI, the agent and the server's Settings use the same functions.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from typing import Any

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


class ClientConfig:
    """Where the API is and the key to call it with. A plain class, not a NamedTuple: `typing`'s
    import and the NamedTuple build were about 4 ms of every hook process's CPU."""

    __slots__ = ("api_key", "api_url", "home")

    def __init__(self, home: Path, api_url: str, api_key: str) -> None:
        self.home = home
        self.api_url = api_url
        self.api_key = api_key

    def _fields(self) -> tuple[Path, str, str]:
        return self.home, self.api_url, self.api_key

    def __eq__(self, other: object) -> bool:  # equal and hashable by value, as the NamedTuple was
        return isinstance(other, ClientConfig) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

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
