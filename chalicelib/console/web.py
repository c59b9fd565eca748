"""The console's HTTP edge: session cookie, CSRF check, HTML answers with a strict CSP.

`ConsoleBlueprint.page(path, methods)` registers a view `view(ctx, **path_params) -> Response`
that runs only for a live session: without one a GET is sent to the sign-in page (htmx gets a
401 with `HX-Redirect`) and anything else is refused with 401. Every POST must carry the session's
CSRF token (`csrf` form field or `X-CSRF-Token` header) and, when the browser sends one, an
Origin of this host. Domain errors become an HTML page with their status.
"""

from __future__ import annotations

import functools
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from chalice import Response
from chalice.app import Request

from chalicelib.console.domain.cookies import (
    SESSION_COOKIE,
    ConsoleSession,
    CookieSpec,
    read_cookie,
    same_token,
)
from chalicelib.kernel.errors import DomainError
from chalicelib.kernel.http import ServedBlueprint
from chalicelib.kernel.logging import log_failure, sanitized

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data", "application/json", "text/plain"]


def base_prefix(request: Request) -> str:
    """What precedes the route's path in the browser's URL (API Gateway's stage, e.g. `/prod`)."""
    ctx = request.context or {}
    full, actual = str(ctx.get("path") or ""), str(ctx.get("resourcePath") or "")
    for name, value in (request.uri_params or {}).items():
        actual = actual.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
    if actual and full.endswith(actual) and full != actual:
        return full[: -len(actual)].rstrip("/")
    return ""


def is_https(request: Request) -> bool:
    return (request.headers.get("x-forwarded-proto") or "").lower() == "https"


def cookie_spec(request: Request) -> CookieSpec:
    return CookieSpec(path=base_prefix(request) + "/console", secure=is_https(request))


def form_of(request: Request) -> dict[str, str]:
    """The form fields of a urlencoded body (the first value of each); {} for anything else."""
    raw = request.raw_body or b""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogatepass")
    content_type = (request.headers.get("content-type") or "").lower()
    if not raw or "application/x-www-form-urlencoded" not in content_type:
        return {}
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {}
    return {k: v[0] for k, v in urllib.parse.parse_qs(decoded, keep_blank_values=True).items()}


@dataclass
class Ctx:
    request: Request
    session: ConsoleSession
    base: str
    form: dict[str, str] = field(default_factory=dict)

    def url(self, path: str, **query: Any) -> str:
        kept = {k: v for k, v in query.items() if v not in (None, "")}
        return self.base + path + ("?" + urllib.parse.urlencode(kept) if kept else "")

    def query(self, name: str, default: str = "") -> str:
        params: dict[str, str] = dict(self.request.query_params or {})
        return str(params.get(name, default)).strip()

    @property
    def htmx(self) -> bool:
        return self.request.headers.get("hx-request") == "true"


def html(body: str, status: int = 200, headers: dict[str, Any] | None = None) -> Response:
    return Response(
        body=body,
        status_code=status,
        headers={"Content-Type": "text/html; charset=utf-8", **SECURITY_HEADERS, **(headers or {})},
    )


def redirect(location: str, headers: dict[str, Any] | None = None) -> Response:
    return Response(
        body="", status_code=303, headers={"Location": location, **SECURITY_HEADERS, **(headers or {})}
    )


def sign_in_first(request: Request) -> Response:
    """The answer without a live session: a browser's GET goes to the sign-in page, the rest get 401."""
    login = base_prefix(request) + "/console/login"
    if request.method == "GET" and request.headers.get("hx-request") != "true":
        return redirect(login)
    return html("sign in first", 401, {"HX-Redirect": login})


def origin_ok(request: Request) -> bool:
    origin = request.headers.get("origin")
    if not origin or origin == "null":
        return origin is None
    return urllib.parse.urlsplit(origin).netloc == (request.headers.get("host") or "")


class SessionLookup(Protocol):
    def session(self, token: str | None) -> ConsoleSession | None: ...


class ConsoleServices:
    """What every console page uses (the base of its module's `Uses`): its sign-in sessions."""

    console_auth: SessionLookup


C = TypeVar("C", bound=ConsoleServices)
ErrorPage = Callable[[Request, int, str], Response]


class ConsoleBlueprint(ServedBlueprint[C]):
    def __init__(self, import_name: str, uses: type[C], error_page: ErrorPage) -> None:
        super().__init__(import_name, uses)
        self._error_page = error_page

    def page(
        self, path: str, methods: tuple[str, ...] = ("GET",)
    ) -> Callable[[Callable[..., Response]], Any]:
        def decorator(view: Callable[..., Response]) -> Any:
            @functools.wraps(view)
            def wrapper(**params: Any) -> Response:
                return self._serve(view, params)

            options: dict[str, Any] = {"methods": list(methods)}
            if "POST" in methods:
                options["content_types"] = FORM_TYPES
            self.route(path, **options)(wrapper)
            return view

        return decorator

    def _serve(self, view: Callable[..., Response], params: dict[str, Any]) -> Response:
        request = self.current_request
        try:
            cookie = read_cookie(request.headers.get("cookie"), SESSION_COOKIE)
            session = self.services.console_auth.session(cookie)
            if session is None:
                return sign_in_first(request)
            ctx = Ctx(request, session, base_prefix(request))
            if request.method != "GET":
                ctx.form = form_of(request)
                presented = ctx.form.get("csrf") or request.headers.get("x-csrf-token")
                if not same_token(session.csrf_token, presented) or not origin_ok(request):
                    return self._error_page(request, 403, "missing or wrong CSRF token: reload the page")
            return view(ctx, **params)
        except DomainError as exc:
            return self._error_page(request, exc.status, exc.message)
        except Exception as exc:  # a bug: logged without the values its message may quote, re-raised
            log_failure("unexpected error in a console page", exc, view=view.__name__)
            raise sanitized(exc) from None
