"""GitHub's repository JSON (REST `GET /user/repos`) as the registry's rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RepoRecord:
    full_name: str
    name: str
    owner: str
    default_branch: str
    clone_url: str
    html_url: str
    description: str
    private: bool
    archived: bool


def parse_repo(item: Any) -> RepoRecord | None:
    """One repository of the API's answer, or None when it lacks what the registry needs."""
    if not isinstance(item, dict):
        return None
    full_name, name = item.get("full_name"), item.get("name")
    if not isinstance(full_name, str) or "/" not in full_name or not isinstance(name, str):
        return None
    owner_field = item.get("owner")
    owner: dict[str, Any] = owner_field if isinstance(owner_field, dict) else {}
    return RepoRecord(
        full_name=full_name,
        name=name,
        owner=str(owner.get("login") or full_name.split("/")[0]),
        default_branch=str(item.get("default_branch") or "main"),
        clone_url=str(item.get("clone_url") or f"https://github.com/{full_name}.git"),
        html_url=str(item.get("html_url") or ""),
        description=str(item.get("description") or "")[:500],
        private=bool(item.get("private")),
        archived=bool(item.get("archived")),
    )
