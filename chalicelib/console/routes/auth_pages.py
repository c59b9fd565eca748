"""Sign in (API key or one-time link), sign out, the static files, and `POST /api/console/links`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response

from chalicelib.auth.request_guard import bearer
from chalicelib.auth.request_principal import current_principal
from chalicelib.console.assets import asset
from chalicelib.console.domain.cookies import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    new_token,
    read_cookie,
    same_token,
    token_hash,
)
from chalicelib.console.pages.layout import bare_page, el, hidden_csrf
from chalicelib.console.routes.common import error_page
from chalicelib.console.services.console_auth import Opened
from chalicelib.console.web import (
    FORM_TYPES,
    SECURITY_HEADERS,
    base_prefix,
    cookie_spec,
    form_of,
    html,
    redirect,
)
from chalicelib.console.web import origin_ok as _origin_ok
from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.http import ApiBlueprint, ServedBlueprint, ok

if TYPE_CHECKING:
    from chalicelib.console.services.console_auth import ConsoleAuth


class Uses:
    console_auth: ConsoleAuth


bp = ServedBlueprint(__name__, Uses)
api = ApiBlueprint(__name__ + ".api", Uses)


def _login_form(message: str | None = None, status: int = 200) -> Response:
    request = bp.current_request
    base, token = base_prefix(request), new_token()
    body = bare_page(
        base,
        "Sign in to Itachi",
        el("p", {"class": "error", "role": "alert"}, message) if message else "",
        el(
            "form",
            {"method": "post", "action": base + "/console/login", "id": "login"},
            hidden_csrf(token),
            el("label", {"for": "key"}, "Admin API key"),
            el(
                "input",
                {
                    "type": "password",
                    "name": "key",
                    "id": "key",
                    "autocomplete": "off",
                    "required": True,
                    "maxlength": 400,
                },
            ),
            el("button", {"type": "submit"}, "Sign in"),
        ),
        el("p", {"class": "note"}, "Or run `itachi console` for a one-time sign-in link."),
    )
    return html(body, status, {"Set-Cookie": cookie_spec(request).set(LOGIN_COOKIE, token, max_age=3600)})


def _signed_in(opened: Opened) -> Response:
    spec = cookie_spec(bp.current_request)
    cookies = [
        spec.set(SESSION_COOKIE, opened.token, expires=opened.session.expires_at),
        spec.clear(LOGIN_COOKIE),
    ]
    return redirect(base_prefix(bp.current_request) + "/console/memories", {"Set-Cookie": cookies})


@bp.route("/console/login", methods=["GET"])
def login_page() -> Response:
    request = bp.current_request
    params: dict[str, str] = dict(request.query_params or {})
    link = params.get("link")
    if not link:
        return _login_form()
    try:
        return _signed_in(bp.services.console_auth.redeem_link(link))
    except DomainError as exc:
        return _login_form(exc.message, exc.status)


@bp.route("/console/login", methods=["POST"], content_types=FORM_TYPES)
def login() -> Response:
    request = bp.current_request
    form = form_of(request)
    if not same_token(
        read_cookie(request.headers.get("cookie"), LOGIN_COOKIE) or "", form.get("csrf")
    ) or not _origin_ok(request):
        return _login_form("The sign-in form expired: try again.", 403)
    try:
        return _signed_in(bp.services.console_auth.sign_in(form.get("key", "")[:400]))
    except DomainError as exc:
        return _login_form(exc.message, 401 if exc.status == 400 else exc.status)


@bp.route("/console/logout", methods=["POST"], content_types=FORM_TYPES)
def logout() -> Response:
    request = bp.current_request
    token = read_cookie(request.headers.get("cookie"), SESSION_COOKIE)
    auth = bp.services.console_auth
    session = auth.session(token)
    if session is None or not same_token(session.csrf_token, form_of(request).get("csrf")):
        return error_page(request, 403, "missing or wrong CSRF token: reload the page")
    auth.sign_out(token)
    return redirect(
        base_prefix(request) + "/console/login", {"Set-Cookie": cookie_spec(request).clear(SESSION_COOKIE)}
    )


@bp.route("/console/assets/{name}", methods=["GET"])
def static_file(name: str) -> Response:
    found = asset(name)
    if found is None:
        return error_page(bp.current_request, 404, f"no console file {name}")
    body, content_type = found
    headers: dict[str, str | list[str]] = {
        **SECURITY_HEADERS,
        "Content-Type": f"{content_type}; charset=utf-8",
        "Cache-Control": "public, max-age=3600",
    }
    return Response(body=body, status_code=200, headers=headers)


@api.route("/api/console/links", methods=["POST"])
def create_link() -> Response:
    # The link is bound to the key that asked for it: revoking that key ends what the link opens.
    signer = token_hash(bearer(api.current_request.headers))
    token, expires = bp.services.console_auth.issue_link(current_principal().name, signer)
    return ok({"path": f"/console/login?link={token}", "expires_at": expires.isoformat()}, status=201)
