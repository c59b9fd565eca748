"""Default deny: every route of the app needs an API key (or, for the console's pages, a console
session) except the few on the app's open list, each of which checks a credential of its own.
Walked over Chalice's route table, so a route added tomorrow is covered without a test of its own."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from chalice import Blueprint
from chalice.test import Client

from app import OPEN_ROUTES, app
from chalicelib.auth.request_principal import current_principal
from chalicelib.bootstrap import Container, build, set_container
from chalicelib.kernel.errors import Unauthorized
from chalicelib.kernel.settings import Settings

CONSOLE = "/console"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    # No database: a request without any credential is refused before a service or a lookup runs.
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path)}).replace(api_keys=("k1",))
    container: Container = build(settings)
    set_container(container)
    with Client(app) as c:
        yield c
    set_container(None)


def concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", path)


def guarded_routes() -> list[tuple[str, str]]:
    return sorted((path, method) for path, methods in app.routes.items() for method in methods
                  if path not in OPEN_ROUTES)


def anonymous(client: Client, method: str, path: str, headers: dict[str, str] | None = None) -> object:
    body = b"" if method == "GET" else b"{}"
    return client.http.request(method, concrete(path), body=body,
                               headers={"Content-Type": "application/json", **(headers or {})})


def test_the_open_list_names_only_routes_that_exist_each_with_its_reason() -> None:
    assert set(OPEN_ROUTES) <= set(app.routes), set(OPEN_ROUTES) - set(app.routes)
    assert all(len(reason) > 20 for reason in OPEN_ROUTES.values())
    assert {"/health", "/telegram/webhook", "/api/machines/join", "/console/login"} <= set(OPEN_ROUTES)


def test_every_route_off_the_open_list_answers_401_without_a_key(client: Client) -> None:
    routes = guarded_routes()
    assert len(routes) > 100
    let_through = []
    for path, method in routes:
        # A browser's plain GET of a console page is sent to the sign-in page instead.
        headers = {"HX-Request": "true"} if path.startswith(CONSOLE) else None
        resp = anonymous(client, method, path, headers)
        if resp.status_code != 401:  # type: ignore[attr-defined]
            let_through.append((method, path, resp.status_code))  # type: ignore[attr-defined]
    assert let_through == []


def test_a_browser_without_a_console_session_is_sent_to_sign_in(client: Client) -> None:
    pages = [p for p, m in guarded_routes() if p.startswith(CONSOLE) and m == "GET"]
    assert pages
    for path in pages:
        resp = anonymous(client, "GET", path)
        assert resp.status_code == 303, path  # type: ignore[attr-defined]
        assert resp.headers["Location"].endswith("/console/login"), path  # type: ignore[attr-defined]


def test_a_route_registered_on_no_list_still_needs_a_key(client: Client) -> None:
    probe = Blueprint("probe")

    @probe.route("/unlisted/probe", methods=["GET"])
    def unlisted() -> dict[str, str]:
        return {"reached": "yes"}

    app.register_blueprint(probe)
    try:
        resp = client.http.get("/unlisted/probe")
        assert resp.status_code == 401 and json.loads(resp.body)["error"] == "unauthorized"
        assert client.http.get("/unlisted/probe", headers={"Authorization": "Bearer k1"}).status_code == 200
    finally:
        app.routes.pop("/unlisted/probe", None)


def test_outside_a_request_nobody_is_the_admin() -> None:
    with pytest.raises(Unauthorized):
        current_principal()
