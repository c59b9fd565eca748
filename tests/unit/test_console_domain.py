"""The console's pure parts: the escaping HTML builder, cookies, and sign-in rules over fakes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from chalicelib.console.domain.cookies import CookieSpec, read_cookie, same_token, token_hash
from chalicelib.console.domain.html import Markup, el, fragment, json_data, safe_url
from chalicelib.console.services.console_auth import ConsoleAuth
from chalicelib.kernel.errors import InvalidInput
from tests.fakes.console_fakes import InMemoryConsoleRepository, InMemoryConsoleUnitOfWork

pytestmark = pytest.mark.unit


def test_text_and_attributes_are_escaped_and_only_markup_made_here_passes_through() -> None:
    hostile = '<script>alert(1)</script>" onmouseover="x'
    out = el("a", {"href": "/console/memories", "title": hostile}, hostile, el("b", None, "bold"))
    assert "<script>" not in out
    assert 'title="&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;x"' in out
    assert out.endswith("<b>bold</b></a>")
    assert fragment("<i>", Markup("<i>ok</i>")) == "&lt;i&gt;<i>ok</i>"
    with pytest.raises(ValueError):
        el("div", {"on click": "x"})


@pytest.mark.parametrize("url", ["javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,x",
                                 "vbscript:x", "//evil.example/x", "/\\evil.example"])
def test_a_link_target_that_is_not_relative_or_http_becomes_a_harmless_anchor(url: str) -> None:
    assert safe_url(url) == "#" and el("a", {"href": url}) == '<a href="#"></a>'
    assert safe_url("/console/memories?q=x") == "/console/memories?q=x"


def test_script_data_cannot_close_its_block() -> None:
    block = json_data("d", {"text": "</script><script>alert(1)</script>&"})
    assert block.count("</script>") == 1 and "\\u003c/script\\u003e" in block and "\\u0026" in block


def test_cookies_carry_httponly_samesite_path_expiry_and_secure_only_over_https() -> None:
    expires = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    plain = CookieSpec("/prod/console", secure=False).set("itachi_console", "tok", expires=expires)
    assert plain == ("itachi_console=tok; Path=/prod/console; HttpOnly; SameSite=Strict; "
                     "Expires=Wed, 02 Jan 2030 03:04:05 GMT")
    assert CookieSpec("/console", secure=True).set("c", "v").endswith("; Secure")
    assert "Max-Age=0" in CookieSpec("/console", secure=False).clear("c")
    assert read_cookie("a=1; itachi_console=tok; b=2", "itachi_console") == "tok"
    assert read_cookie('bad"cookie', "itachi_console") is None and read_cookie(None, "x") is None
    assert same_token("abc", "abc") and not same_token("abc", "abd") and not same_token("", "")
    assert not same_token("abc", None)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 24, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


LAPTOP_KEY = token_hash("itk_admin")


def _auth(clock: Clock, live: set[bytes] | None = None) -> tuple[ConsoleAuth, InMemoryConsoleRepository]:
    repo = InMemoryConsoleRepository()
    keys = {"itk_admin": "laptop"}
    live = {LAPTOP_KEY} if live is None else live
    units = lambda: InMemoryConsoleUnitOfWork(repo)  # noqa: E731
    return ConsoleAuth(units, keys.get, live.__contains__, clock=clock), repo


def test_only_an_admin_key_opens_a_session_and_only_its_hash_is_kept() -> None:
    clock = Clock()
    auth, repo = _auth(clock)
    with pytest.raises(InvalidInput):
        auth.sign_in("itk_client")
    opened = auth.sign_in(" itk_admin ")
    assert list(repo.sessions) == [token_hash(opened.token)]
    session = auth.session(opened.token)
    assert session is not None and session.signed_in_as == "laptop" and session.csrf_token != opened.token
    clock.now += timedelta(hours=12, seconds=1)
    assert auth.session(opened.token) is None  # expired


def test_signing_out_ends_the_session_and_a_link_works_once_within_its_minutes() -> None:
    clock = Clock()
    auth, _ = _auth(clock)
    opened = auth.sign_in("itk_admin")
    auth.sign_out(opened.token)
    assert auth.session(opened.token) is None
    token, _ = auth.issue_link("laptop", LAPTOP_KEY)
    assert auth.redeem_link(token).session.signed_in_as == "laptop (link)"
    with pytest.raises(InvalidInput):
        auth.redeem_link(token)
    late, _ = auth.issue_link("laptop", LAPTOP_KEY)
    clock.now += timedelta(minutes=11)
    with pytest.raises(InvalidInput):
        auth.redeem_link(late)


def test_a_session_and_a_link_live_only_while_the_key_that_opened_them_does() -> None:
    live = {LAPTOP_KEY}
    auth, _ = _auth(Clock(), live)
    opened = auth.sign_in("itk_admin")
    link, _ = auth.issue_link("laptop", LAPTOP_KEY)
    live.clear()  # the key is revoked
    assert auth.session(opened.token) is None
    with pytest.raises(InvalidInput):
        auth.redeem_link(link)
