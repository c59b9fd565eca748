"""Where the CLI, the agent and the hooks find the API: config.json, overridden by the environment."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from chalicelib.kernel.settings import DEFAULT_PORT, default_home


@dataclass(frozen=True)
class ClientConfig:
    home: Path
    api_url: str
    api_key: str = field(repr=False)


def load_client_config(home: Path | None = None) -> ClientConfig:
    home = home or default_home()
    data: dict[str, str] = {}
    with contextlib.suppress(OSError, ValueError):
        data = json.loads((home / "config.json").read_text())
    return ClientConfig(
        home=home,
        api_url=(os.environ.get("ITACHI_API_URL") or data.get("api_url")
                 or f"http://127.0.0.1:{DEFAULT_PORT}").rstrip("/"),
        api_key=os.environ.get("ITACHI_API_KEY") or data.get("api_key") or "",
    )
