"""A small JSON client for the Itachi API, used by the CLI and the agent."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from agent.client_config import ClientConfig


class ApiError(Exception):
    def __init__(self, status: int, message: str, body: Any = None) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.body = body


class ApiClient:
    def __init__(self, config: ClientConfig, timeout_s: float = 30.0) -> None:
        self._config = config
        self._timeout = timeout_s

    def get(self, path: str, **params: Any) -> Any:
        query = {k: v for k, v in params.items() if v is not None}
        suffix = f"?{urllib.parse.urlencode(query)}" if query else ""
        return self._call("GET", path + suffix)

    def post(self, path: str, body: Any | None = None) -> Any:
        return self._call("POST", path, body if body is not None else {})

    def delete(self, path: str) -> Any:
        return self._call("DELETE", path)

    def _call(self, method: str, path: str, body: Any | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310 (URL from the user's own config)
            self._config.api_url + path, data=data, method=method,
            headers={"Authorization": f"Bearer {self._config.api_key}",
                     "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as resp:  # noqa: S310
                raw = resp.read()
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            raise ApiError(exc.code, _message(raw), _json_or_none(raw)) from None
        except (urllib.error.URLError, OSError) as exc:
            raise ApiError(0, f"cannot reach {self._config.api_url}: {exc}") from None
        return json.loads(raw) if raw else None


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        return raw.decode(errors="replace")[:200]
    return str(body.get("message") or body.get("Message") or body)
