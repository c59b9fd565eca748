"""What the MCP tools' backend (`api_backend.py`) calls: a REST client, over HTTP for `itachi mcp`,
handed to the app in process for `/mcp` (`chalicelib/mcp/route_client.py`)."""

from __future__ import annotations

from typing import Any, Protocol

Json = dict[str, Any]


class BackendError(Exception):
    """An operation refused or failed: status as HTTP would say it (0: API unreachable)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


class RestClient(Protocol):
    """`ApiClient`'s calls: JSON answers; refusals raise `ApiError` with the route's status and message."""

    def get(self, path: str, **params: Any) -> Any: ...

    def post(self, path: str, body: Any | None = None) -> Any: ...

    def delete(self, path: str) -> Any: ...
