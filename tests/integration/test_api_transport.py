"""The one stdlib HTTP client of the hooks, the CLI and the agent, against a real local server."""

from __future__ import annotations

import json
import threading
from email.message import Message
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from chalicelib.contracts.api_transport import ApiClient, ApiError, request_json
from chalicelib.contracts.local_home import ClientConfig
from tests.fakes.fake_itachi_api import unreachable_url
from tests.fakes.local_http_server import LocalHttpServer, Reply

pytestmark = pytest.mark.integration


class Seen(NamedTuple):
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class Scripted(LocalHttpServer):
    """Answers with what the path asks for: /status/<code> or /echo; records every request."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Seen] = []
        self._lock = threading.Lock()

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        with self._lock:
            self.seen.append(Seen(method, path, {k.lower(): v for k, v in headers.items()},
                                  json.loads(body) if body else None))
        if "/status/" in path:
            code = int(path.rsplit("/", 1)[1])
            return Reply(code, {"message": f"said {code}", "code": code})
        return Reply(200, {"method": method, "path": path})


@pytest.fixture
def server() -> Any:
    with Scripted() as running:
        yield running


def test_a_json_body_goes_out_with_the_key_and_the_answer_comes_back_decoded(server: Scripted) -> None:
    answer = request_json(server.url + "/", "secret", "POST", "/api/x", {"a": 1}, timeout_s=5,
                          user_agent="itachi-test", headers={"Idempotency-Key": "k1"})
    assert answer == {"method": "POST", "path": "/api/x"}
    seen = server.seen[-1]
    assert seen.body == {"a": 1}
    assert seen.headers["authorization"] == "Bearer secret"
    assert seen.headers["content-type"] == "application/json"
    assert (seen.headers["user-agent"], seen.headers["idempotency-key"]) == ("itachi-test", "k1")


def test_without_a_key_or_a_body_no_authorization_or_content_type_is_sent(server: Scripted) -> None:
    request_json(server.url, "", "GET", "/api/y?q=1", timeout_s=5)
    assert "authorization" not in server.seen[-1].headers
    assert "content-type" not in server.seen[-1].headers
    assert server.seen[-1].path == "/api/y?q=1"


def test_an_error_status_raises_with_the_servers_message_and_body(server: Scripted) -> None:
    with pytest.raises(ApiError) as caught:
        request_json(server.url, "k", "POST", "/status/409", {}, timeout_s=5)
    assert (caught.value.status, caught.value.message) == (409, "said 409")
    assert caught.value.body == {"message": "said 409", "code": 409}


def test_an_unreachable_server_or_a_bad_url_is_status_zero() -> None:
    for url in (unreachable_url(), "ftp://example.invalid", "not a url"):
        with pytest.raises(ApiError) as caught:
            request_json(url, "k", "GET", "/health", timeout_s=2)
        assert caught.value.status == 0


def test_a_proxy_named_in_the_environment_carries_the_request(server: Scripted,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", server.url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    request_json("http://itachi.invalid:8787", "k", "GET", "/health", timeout_s=5)
    assert server.seen[-1].path == "http://itachi.invalid:8787/health"


def test_the_cli_client_drops_empty_query_values(server: Scripted, tmp_path: Path) -> None:
    client = ApiClient(ClientConfig(home=tmp_path, api_url=server.url, api_key="k"), timeout_s=5)
    assert client.get("/api/tasks", status=None, limit=3)["path"] == "/api/tasks?limit=3"
    assert client.post("/api/tasks")["method"] == "POST" and server.seen[-1].body == {}
    assert client.delete("/api/memory/m1")["method"] == "DELETE"
    with pytest.raises(ApiError) as caught:
        client.get("/status/503")
    assert caught.value.status == 503
