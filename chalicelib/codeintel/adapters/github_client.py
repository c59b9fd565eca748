"""GitHub's REST API over HTTPS (standard library): the one listing GitHub sync reads."""

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
        request = urllib.request.Request(  # noqa: S310 (the configured https API URL)
            f"{self._api_url}/user/repos?{query}",
            headers={
                "Authorization": f"Bearer {self._token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": "itachi-github-sync",
            },
        )
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:  # noqa: S310 (https URL)
            body = json.loads(response.read())
        if not isinstance(body, list):
            raise ValueError("GitHub answered /user/repos with something other than a list")
        return body
