"""The console's cookies and tokens: what a session cookie says and how a CSRF token is checked."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime
from http.cookies import CookieError, SimpleCookie

SESSION_COOKIE = "itachi_console"
LOGIN_COOKIE = "itachi_console_login"  # the login form's own CSRF token (double submit)
SESSION_HOURS = 12
LINK_MINUTES = 10


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", errors="surrogatepass")).digest()


def same_token(expected: str, presented: str | None) -> bool:
    return (
        bool(expected)
        and presented is not None
        and hmac.compare_digest(expected.encode(), presented.encode("utf-8", errors="surrogatepass"))
    )


def read_cookie(header: str | None, name: str) -> str | None:
    if not header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(header)
    except CookieError:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None and morsel.value else None


@dataclass(frozen=True)
class CookieSpec:
    path: str
    secure: bool

    def set(self, name: str, value: str, expires: datetime | None = None, max_age: int | None = None) -> str:
        parts = [f"{name}={value}", f"Path={self.path}", "HttpOnly", "SameSite=Strict"]
        if expires is not None:
            parts.append("Expires=" + expires.strftime("%a, %d %b %Y %H:%M:%S GMT"))
        if max_age is not None:
            parts.append(f"Max-Age={max_age}")
        if self.secure:
            parts.append("Secure")
        return "; ".join(parts)

    def clear(self, name: str) -> str:
        return self.set(name, "", max_age=0)


@dataclass(frozen=True)
class ConsoleSession:
    csrf_token: str
    signed_in_as: str
    expires_at: datetime
    key_hash: bytes | None = None  # the SHA-256 of the API key that opened it
