"""A console user over real HTTP: a cookie jar, sign-in, and the CSRF token of the last page."""

from __future__ import annotations

import re
from typing import Any

import requests

CSRF_FIELD = re.compile(r'name="csrf" value="([^"]+)"')


class ConsoleUser:
    def __init__(self, base_url: str) -> None:
        self.base = base_url.rstrip("/")
        self.http = requests.Session()
        self.csrf = ""

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        answer = self.http.get(self.base + path, allow_redirects=False, timeout=120, **kwargs)
        found = CSRF_FIELD.search(answer.text)
        if found:
            self.csrf = found.group(1)
        return answer

    def post(self, path: str, data: dict[str, str] | None = None, **kwargs: Any) -> requests.Response:
        return self.http.post(self.base + path, data=data or {}, allow_redirects=False, timeout=120, **kwargs)

    def sign_in(self, key: str) -> requests.Response:
        self.get("/console/login")
        answer = self.post("/console/login", {"csrf": self.csrf, "key": key})
        self.get("/console/memories")  # the session's CSRF token
        return answer
