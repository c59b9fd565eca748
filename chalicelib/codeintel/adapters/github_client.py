"""GitHub's REST API over HTTPS (standard library): the listing GitHub sync reads, and the issue
comments GitHub-triggered tasks write back."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from typing import Any

from chalicelib.kernel.errors import ConfigurationError

API_VERSION = "2022-11-28"
TIMEOUT_S = 20.0


class GitHubClient:
    def __init__(self, token: str, api_url: str = "https://api.github.com") -> None:
        if not token:
            raise ConfigurationError("GitHub sync needs a token")
        self._token = token
        self._api_url = api_url.rstrip("/")

    def user_repos(self, page: int, per_page: int) -> list[Any]:
        query = urllib.parse.urlencode(
            {
                "per_page": per_page,
                "page": page,
                "sort": "full_name",
                "affiliation": "owner,collaborator,organization_member",
            }
        )
        body = self._call("GET", f"/user/repos?{query}")
        if not isinstance(body, list):
            raise ValueError("GitHub answered /user/repos with something other than a list")
        return body

    def comment_on_issue(self, repository: str, number: int, text: str) -> str:
        """Comment on issue or pull request `number` of `owner/name`; return the comment's URL."""
        owner, _, name = repository.partition("/")
        path = f"/repos/{urllib.parse.quote(owner, safe='')}/{urllib.parse.quote(name, safe='')}" \
               f"/issues/{int(number)}/comments"
        body = self._call("POST", path, {"body": text})
        return str(body.get("html_url", "")) if isinstance(body, dict) else ""

    def _call(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(  # noqa: S310 (the configured https API URL)
            f"{self._api_url}{path}",
            data=data,
            method=method,
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": "itachi-github-sync",
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (https URL)
            return json.loads(response.read())
