"""What a request hands off with `after_response` runs on its thread once the local API server has
written the response: the client has its answer while the work is still waiting; a failing action
is logged and the server goes on; stopping the server lets a running action finish. Real HTTP."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator

import pytest
from chalice import Chalice

from chalicelib.kernel.after_response import after_response
from infra.local.api_server import ApiServer

ran: list[str] = []
release = threading.Event()


def _app() -> Chalice:
    app = Chalice(app_name="after-response-test")

    @app.route("/hand-off/{name}")
    def hand_off(name: str) -> dict[str, object]:
        def later() -> None:
            assert release.wait(60), "never released"
            ran.append(name)

        return {"kept": after_response(later)}

    @app.route("/fail-later")
    def fail_later() -> dict[str, object]:
        return {"kept": after_response(lambda: 1 / 0)}

    return app


@pytest.fixture
def server() -> Iterator[ApiServer]:
    ran.clear()
    release.clear()
    api = ApiServer(_app(), port=0)
    api.start()
    yield api
    release.set()
    api.stop()


def get(api: ApiServer, path: str) -> bytes:
    with urllib.request.urlopen(api.url + path, timeout=60) as response:
        return bytes(response.read())


def test_the_client_has_its_answer_while_the_handed_off_work_still_waits(server: ApiServer) -> None:
    assert get(server, "/hand-off/first") == b'{"kept":true}'
    assert ran == []  # it cannot have run: it waits for the release below
    stopping = threading.Thread(target=server.stop)
    stopping.start()  # a stop waits for the action it would otherwise cut off
    release.set()
    stopping.join(60)
    assert ran == ["first"]


def test_a_failing_action_is_logged_and_the_server_goes_on(server: ApiServer) -> None:
    assert get(server, "/fail-later") == b'{"kept":true}'
    release.set()
    assert get(server, "/hand-off/next") == b'{"kept":true}'


def test_outside_a_server_that_answers_first_nothing_is_kept() -> None:
    assert after_response(lambda: ran.append("never")) is False
    assert "never" not in ran
