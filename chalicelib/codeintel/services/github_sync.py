"""GitHub sync (daily): the repos registry from GitHub's REST API (`GET /user/repos`, paged), so
`/repos`, `/task` and the assistant know every repository and its default branch.

Without a token it does nothing and says so. A repository GitHub reports unchanged is not
written; at most `MAX_PAGES` pages of `PER_PAGE` are read per run.
"""

from __future__ import annotations

from typing import Any

from chalicelib.codeintel.domain.github_repos import parse_repo
from chalicelib.codeintel.services.ports import CodeIntelUnits, GitHubListing

PER_PAGE = 100
MAX_PAGES = 20


class GitHubSync:
    def __init__(self, units: CodeIntelUnits, github: GitHubListing | None) -> None:
        self._units, self._github = units, github

    def run(self) -> dict[str, Any]:
        if self._github is None:
            return {"skipped": "no GitHub token (GITHUB_TOKEN)", "added": 0, "updated": 0, "unchanged": 0}
        counts: dict[str, Any] = {"added": 0, "updated": 0, "unchanged": 0, "pages": 0}
        for page in range(1, MAX_PAGES + 1):
            items = self._github.user_repos(page, PER_PAGE)
            counts["pages"] += 1
            records = [r for r in (parse_repo(i) for i in items) if r is not None]
            with self._units() as uow:
                for record in records:
                    counts[uow.repos.upsert(record)] += 1
                uow.commit()
            if len(items) < PER_PAGE:
                break
        return counts

    def repos(self) -> list[dict[str, Any]]:
        with self._units() as uow:
            return uow.repos.all()

    def default_branch(self, project: str) -> str | None:
        """The default branch of the registered repo named `project` (owner/name, or name alone)."""
        wanted = project.lower().removesuffix(".git").split("github.com/")[-1]
        for repo in self.repos():
            if wanted in (repo["full_name"].lower(), repo["name"].lower()):
                return str(repo["default_branch"])
        return None
