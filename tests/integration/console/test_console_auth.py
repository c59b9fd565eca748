"""The console's door over real HTTP: cookie sessions, CSRF, sign-out, one-time links, headers."""

from __future__ import annotations

import pytest
import requests

from app import app
from tests.conftest import RunningApi
from tests.support.console_client import ConsoleUser

pytestmark = pytest.mark.integration
ANY_ID = "00000000-0000-4000-8000-000000000000"
OPEN_PATHS = {"/console/login", "/console/assets/{name}"}


def _console_routes() -> list[tuple[str, str]]:
    return sorted(
        (method, path)
        for path, methods in app.routes.items()
        if path.startswith("/console") and path not in OPEN_PATHS
        for method in methods
    )


PARAMS = {
    "{memory_id}": ANY_ID,
    "{task_id}": ANY_ID,
    "{action}": "forget",
    "{proposal_id}": ANY_ID,
    "{decision}": "approve",
    "{node_id}": ANY_ID,
    "{contradiction_id}": ANY_ID,
    "{rule_id}": ANY_ID,
    "{resolution}": "keep_both",
    "{run_id}": ANY_ID,
}


def _concrete(path: str) -> str:
    for name, value in PARAMS.items():
        path = path.replace(name, value)
    assert "{" not in path, path
    return path


def _set_cookie_headers(answer: requests.Response) -> list[str]:
    return [v for k, v in answer.raw.headers.items() if k.lower() == "set-cookie"]


def test_no_console_page_answers_without_a_session(api: RunningApi) -> None:
    routes = _console_routes()
    assert len(routes) >= 10
    for method, path in routes:
        for cookie in (None, "itachi_console=not-a-session"):
            headers = {"Cookie": cookie} if cookie else {}
            answer = requests.request(
                method,
                api.url + _concrete(path),
                headers=headers,
                allow_redirects=False,
                data={"csrf": "x"} if method == "POST" else None,
                timeout=120,
            )
            if method == "GET" and path != "/console/logout":
                assert answer.status_code == 303, (method, path, answer.status_code)
                assert answer.headers["Location"] == "/console/login"
            else:
                assert answer.status_code in (401, 403), (method, path, answer.status_code)
            assert ANY_ID not in answer.text
    htmx = requests.get(api.url + "/console/memories", headers={"HX-Request": "true"}, timeout=120)
    assert htmx.status_code == 401 and htmx.headers["HX-Redirect"] == "/console/login"


def test_signing_in_with_the_api_key_sets_an_httponly_samesite_expiring_cookie_and_never_echoes_the_key(
    api: RunningApi,
) -> None:
    user = ConsoleUser(api.url)
    answer = user.sign_in(api.key)
    assert answer.status_code == 303 and answer.headers["Location"] == "/console/memories"
    session_cookie = next(c for c in _set_cookie_headers(answer) if c.startswith("itachi_console="))
    assert "HttpOnly" in session_cookie and "SameSite=Strict" in session_cookie
    assert "Expires=" in session_cookie and "Path=/console" in session_cookie
    assert "Secure" not in session_cookie  # plain HTTP: a Secure cookie would never come back
    assert api.key not in session_cookie
    page = user.get("/console/memories")
    assert page.status_code == 200 and "Memories" in page.text
    assert api.key not in page.text and user.csrf


def test_over_https_the_session_cookie_is_secure(api: RunningApi) -> None:
    user = ConsoleUser(api.url)
    user.get("/console/login", headers={"X-Forwarded-Proto": "https"})
    login_cookie = user.http.cookies.get("itachi_console_login")
    answer = user.post(
        "/console/login",
        {"csrf": user.csrf, "key": api.key},
        headers={"X-Forwarded-Proto": "https", "Cookie": f"itachi_console_login={login_cookie}"},
    )
    assert answer.status_code == 303
    assert all("Secure" in c for c in _set_cookie_headers(answer))


def test_a_wrong_key_or_a_login_form_without_its_token_opens_no_session(api: RunningApi) -> None:
    user = ConsoleUser(api.url)
    user.get("/console/login")
    wrong = user.post("/console/login", {"csrf": user.csrf, "key": "itachi_not_a_key"})
    assert wrong.status_code == 401 and "not a live admin API key" in wrong.text
    assert "itachi_not_a_key" not in wrong.text
    forged = requests.post(
        api.url + "/console/login", data={"key": api.key, "csrf": "guess"}, allow_redirects=False, timeout=120
    )
    assert forged.status_code == 403
    assert not any(c.startswith("itachi_console=") for c in _set_cookie_headers(forged))


def test_a_state_changing_post_without_the_csrf_token_is_refused_and_changes_nothing(api: RunningApi) -> None:
    memory_id = requests.post(
        api.url + "/api/memory",
        headers=api.headers,
        timeout=120,
        json={"project": "console", "content": "The deploy script needs AWS_PROFILE set"},
    ).json()["id"]
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    for data in ({}, {"csrf": "wrong"}, {"csrf": user.csrf + "x"}):
        refused = user.post(f"/console/memories/{memory_id}/forget", data)
        assert refused.status_code == 403 and "CSRF" in refused.text
    cross_site = user.post(
        f"/console/memories/{memory_id}/forget",
        {"csrf": user.csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert cross_site.status_code == 403
    memory_url = api.url + f"/api/memory/{memory_id}"
    assert requests.get(memory_url, headers=api.headers, timeout=120).status_code == 200
    done = user.post(f"/console/memories/{memory_id}/forget", {"csrf": user.csrf})
    assert done.status_code == 303
    memory_url = api.url + f"/api/memory/{memory_id}"
    assert requests.get(memory_url, headers=api.headers, timeout=120).status_code == 404


def test_signing_out_ends_the_session_for_good(api: RunningApi) -> None:
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    stolen = user.http.cookies.get("itachi_console")
    assert user.post("/console/logout", {}).status_code == 403  # no token: no sign-out either
    out = user.post("/console/logout", {"csrf": user.csrf})
    assert out.status_code == 303 and out.headers["Location"] == "/console/login"
    again = requests.get(
        api.url + "/console/memories",
        headers={"Cookie": f"itachi_console={stolen}"},
        allow_redirects=False,
        timeout=120,
    )
    assert again.status_code == 303


def test_a_one_time_link_opens_one_session_and_is_then_spent(api: RunningApi) -> None:
    link = requests.post(api.url + "/api/console/links", headers=api.headers, timeout=120)
    assert link.status_code == 201
    path = link.json()["path"]
    assert path.startswith("/console/login?link=") and api.key not in path
    assert requests.post(api.url + "/api/console/links", timeout=120).status_code == 401
    user = ConsoleUser(api.url)
    first = user.get(path)
    assert first.status_code == 303 and user.get("/console/tasks").status_code == 200
    second = ConsoleUser(api.url).get(path)
    assert second.status_code == 400 and "spent or expired" in second.text


def test_every_console_answer_carries_a_strict_content_security_policy(api: RunningApi) -> None:
    user = ConsoleUser(api.url)
    user.sign_in(api.key)
    for path in (
        "/console/login",
        "/console/memories",
        "/console/tasks",
        "/console/sessions",
        "/console/learning",
        "/console/machines",
        "/console/spend",
    ):
        answer = user.get(path)
        assert answer.status_code == 200, path
        csp = answer.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp and answer.headers["X-Content-Type-Options"] == "nosniff"
        assert (
            "<script>" not in answer.text and " on" not in answer.text.split("<body", 1)[-1].split(">", 1)[0]
        )
    script = user.get("/console/assets/htmx.min.js")
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript")
    assert user.get("/console/assets/package.json").status_code == 404


def _stored_admin_key(api: RunningApi, name: str) -> str:
    created = requests.post(api.url + "/api/keys", json={"name": name, "kind": "admin"}, headers=api.headers,
                            timeout=120)
    assert created.status_code == 201, created.text
    return str(created.json()["key"])


def _revoke(api: RunningApi, name: str) -> None:
    assert requests.delete(f"{api.url}/api/keys/{name}", headers=api.headers, timeout=120).status_code == 200


def test_revoking_a_key_ends_the_console_sessions_it_opened_on_the_next_request(api: RunningApi) -> None:
    key = _stored_admin_key(api, "ops-laptop")
    user, other = ConsoleUser(api.url), ConsoleUser(api.url)
    user.sign_in(key)
    other.sign_in(api.key)  # the deployment's key: its session is not the revoked key's
    assert user.get("/console/tasks").status_code == 200
    _revoke(api, "ops-laptop")
    assert user.get("/console/tasks").status_code == 303
    assert user.get("/console/tasks", headers={"HX-Request": "true"}).status_code == 401
    assert other.get("/console/tasks").status_code == 200


def test_revoking_a_key_ends_the_sessions_its_one_time_links_opened(api: RunningApi) -> None:
    key = _stored_admin_key(api, "ops-script")
    link = requests.post(api.url + "/api/console/links", headers={"Authorization": f"Bearer {key}"},
                         timeout=120)
    assert link.status_code == 201
    unused = requests.post(api.url + "/api/console/links", headers={"Authorization": f"Bearer {key}"},
                           timeout=120).json()["path"]
    user = ConsoleUser(api.url)
    assert user.get(link.json()["path"]).status_code == 303 and user.get("/console/tasks").status_code == 200
    _revoke(api, "ops-script")
    assert user.get("/console/tasks").status_code == 303
    late = ConsoleUser(api.url)
    late.get(unused)
    assert late.get("/console/tasks").status_code == 303  # a link made by a revoked key opens nothing
