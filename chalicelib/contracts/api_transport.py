"""One JSON request to the Itachi API, standard library only: the hooks, the CLI and the agent.

Plain `http://` requests go out over a socket (`plain_http`: `http.client` would import the
`email` package and `ssl` first); `https://` ones over `http.client`, imported then; importing
`urllib.request` cost a hook process 7 to 11 ms of CPU more (`docs/benchmarks.md`). Where urllib would have
applied a proxy (a `*_proxy` environment variable, or the system settings it reads on macOS and
Windows) the request goes through urllib, so proxy behaviour is urllib's.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from urllib.parse import urlencode, urlsplit

TYPE_CHECKING = False  # typing itself is not imported at run time (hooks.launch)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from chalicelib.contracts.local_home import ClientConfig


class ApiError(Exception):
    """A request that failed: status is the HTTP status, or 0 when the API was not reached."""

    def __init__(self, status: int, message: str, body: Any = None) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.body = body


class JsonCalls:
    """GET with a query, POST with a JSON body, DELETE: each one `_call(method, path, body)`."""

    def get(self, path: str, **params: Any) -> Any:
        query = {k: v for k, v in params.items() if v is not None}
        return self._call("GET", path + (f"?{urlencode(query)}" if query else ""))

    def post(self, path: str, body: Any | None = None) -> Any:
        return self._call("POST", path, body if body is not None else {})

    def delete(self, path: str) -> Any:
        return self._call("DELETE", path)

    def _call(self, method: str, path: str, body: Any | None = None) -> Any:
        raise NotImplementedError


class ApiClient(JsonCalls):
    """A blocking JSON client for the CLI and the agent: one timeout per request, errors raised."""

    def __init__(self, config: ClientConfig, timeout_s: float = 30.0,
                 headers: Mapping[str, str] | None = None) -> None:
        self._config = config
        self._timeout = timeout_s
        self._headers = dict(headers) if headers else None  # sent with every request

    @classmethod
    def configured(cls, home: Path | None = None, timeout_s: float = 30.0,
                   headers: Mapping[str, str] | None = None) -> ApiClient:
        """A client for the API that $ITACHI_HOME/config.json and the environment name."""
        from chalicelib.contracts.local_home import load_client_config

        return cls(load_client_config(home), timeout_s, headers)

    def _call(self, method: str, path: str, body: Any | None = None) -> Any:
        return request_json(self._config.api_url, self._config.api_key, method, path, body,
                            timeout_s=self._timeout, user_agent="itachi-cli", headers=self._headers)


def request_json(api_url: str, api_key: str, method: str, path: str, body: Any = None, *,
                 timeout_s: float, user_agent: str = "itachi",
                 headers: Mapping[str, str] | None = None) -> Any:
    """Send one request and return its JSON answer (None when the answer is empty or not JSON).

    Raises ApiError with the HTTP status and the server's message for any status outside
    2xx, and with status 0 when the URL is unusable or the server was not reached in time.
    """
    url = api_url.rstrip("/") + path
    if not url.startswith(("http://", "https://")):
        raise ApiError(0, f"not an http(s) URL: {api_url}")
    data = json.dumps(body).encode("utf-8") if body is not None else None
    sent = {"Accept": "application/json", "User-Agent": user_agent, **(headers or {})}
    if data is not None:
        sent["Content-Type"] = "application/json"
    if api_key:
        sent["Authorization"] = f"Bearer {api_key}"
    try:
        status, raw = (_via_urllib if _proxied() else _direct)(method, url, data, sent, timeout_s)
    except (OSError, ValueError) as exc:
        raise ApiError(0, f"cannot reach {api_url}: {exc}") from None
    if not 200 <= status < 300:
        raise ApiError(status, _message(raw), _json_or_none(raw))
    return _json_or_none(raw)


def _proxied() -> bool:
    if sys.platform in ("darwin", "win32"):  # urllib reads the system's proxy settings there
        return True
    return any(value and name.lower().endswith("_proxy") and name.lower() != "no_proxy"
               for name, value in os.environ.items())


def _direct(method: str, url: str, data: bytes | None, headers: dict[str, str],
            timeout_s: float) -> tuple[int, bytes]:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if parts.scheme == "http":
        from chalicelib.contracts.plain_http import exchange

        return exchange(parts.hostname or "", parts.port or 80, method, target, data, headers, timeout_s)
    import http.client

    conn = http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout_s)
    try:
        conn.request(method, target, body=data, headers={**headers, "Connection": "close"})
        response = conn.getresponse()
        return response.status, response.read()
    except http.client.HTTPException as exc:
        raise ValueError(str(exc)) from None
    finally:
        conn.close()


def _via_urllib(method: str, url: str, data: bytes | None, headers: dict[str, str],
                timeout_s: float) -> tuple[int, bytes]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
    try:
        # A fresh opener reads the proxy settings now (urlopen's shared one keeps its first view).
        with urllib.request.build_opener().open(request, timeout=timeout_s) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _message(raw: bytes) -> str:
    body = _json_or_none(raw)
    if not isinstance(body, dict):
        return raw.decode(errors="replace")[:200]
    return str(body.get("message") or body.get("Message") or body)
