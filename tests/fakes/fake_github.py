"""A local fake of GitHub's REST API: `GET /user/repos`, paged as GitHub pages it, and
`POST /repos/{owner}/{repo}/issues/{number}/comments`, recorded in `comments`.

It checks what GitHub checks (a bearer token it knows, 401 otherwise; `per_page` at most 100),
answers with GitHub's repository shape and a `Link` header, and records every request.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from email.message import Message
from http import HTTPStatus
from typing import Any

from tests.fakes.local_http_server import LocalHttpServer, Reply

TOKEN = "ghp_fake_token_for_tests_0123456789abcdef"
_COMMENTS = re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<number>[0-9]+)/comments$")


def github_repo(
    owner: str,
    name: str,
    *,
    default_branch: str = "main",
    private: bool = False,
    archived: bool = False,
    description: str = "",
) -> dict[str, Any]:
    """A repository as `GET /user/repos` returns it (the fields Itachi reads, and some it does not)."""
    full = f"{owner}/{name}"
    return {
        "id": abs(hash(full)) % 10**9,
        "node_id": "R_fake",
        "name": name,
        "full_name": full,
        "owner": {"login": owner, "type": "User"},
        "private": private,
        "archived": archived,
        "html_url": f"https://github.com/{full}",
        "clone_url": f"https://github.com/{full}.git",
        "ssh_url": f"git@github.com:{full}.git",
        "description": description or None,
        "default_branch": default_branch,
        "fork": False,
        "visibility": "private" if private else "public",
    }


class FakeGitHub(LocalHttpServer):
    def __init__(self, repos: list[dict[str, Any]] | None = None, token: str = TOKEN) -> None:
        super().__init__()
        self.token = token
        self.repos = list(repos or [])
        self.requests: list[str] = []
        self.comments: list[dict[str, Any]] = []  # {"repository", "number", "body"} in arrival order
        self._lock = threading.Lock()

    @property
    def api_url(self) -> str:
        return self.url

    def respond(self, method: str, path: str, headers: Message, body: bytes) -> Reply:
        with self._lock:
            self.requests.append(path)
        if headers.get("Authorization", "") not in (f"Bearer {self.token}", f"token {self.token}"):
            return Reply(
                HTTPStatus.UNAUTHORIZED,
                {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"},
            )
        route, _, query = path.partition("?")
        comment_on = _COMMENTS.match(route)
        if method == "POST" and comment_on:
            return self._comment(comment_on, body)
        if method != "GET" or route != "/user/repos":
            return Reply(HTTPStatus.NOT_FOUND, {"message": "Not Found"})
        params = urllib.parse.parse_qs(query)
        per_page = int(params.get("per_page", ["30"])[0])
        page = int(params.get("page", ["1"])[0])
        if not 1 <= per_page <= 100 or page < 1:
            return Reply(HTTPStatus.UNPROCESSABLE_ENTITY, {"message": "Validation Failed"})
        with self._lock:
            ordered = sorted(self.repos, key=lambda r: r["full_name"].lower())
        chunk = ordered[(page - 1) * per_page : page * per_page]
        last = max(1, -(-len(ordered) // per_page))
        link = f'<{self.url}/user/repos?per_page={per_page}&page={last}>; rel="last"'
        if page < last:
            link = f'<{self.url}/user/repos?per_page={per_page}&page={page + 1}>; rel="next", ' + link
        return Reply(HTTPStatus.OK, chunk, {"Link": link})

    def _comment(self, target: re.Match[str], body: bytes) -> Reply:
        try:
            text = json.loads(body or b"{}").get("body")
        except (ValueError, AttributeError):
            text = None
        if not isinstance(text, str) or not text:
            return Reply(HTTPStatus.UNPROCESSABLE_ENTITY, {"message": "Validation Failed"})
        repository, number = f"{target['owner']}/{target['repo']}", int(target["number"])
        with self._lock:
            self.comments.append({"repository": repository, "number": number, "body": text})
            comment_id = len(self.comments)
        return Reply(HTTPStatus.CREATED, {
            "id": comment_id, "body": text,
            "html_url": f"https://github.com/{repository}/issues/{number}#issuecomment-{comment_id}"})
