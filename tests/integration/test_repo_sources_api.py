"""A task, a session or a subagent run naming a repository no machine may take is refused with a
400 that says what is allowed, before anything is stored or sent to a machine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.bootstrap import Container
from chalicelib.contracts.api_transport import ApiClient, ApiError
from tests.conftest import RunningApi
from tests.support.orchestration import client_for, heartbeat

ROUTES = {
    "/api/tasks": {"description": "do it", "project": "proj"},
    "/api/sessions": {"prompt": "hello", "project": "proj", "machine": "m1"},
    "/api/agents/runs": {"profile": "operator", "prompt": "watch it"},
}


@pytest.fixture
def client(api: RunningApi) -> Iterator[ApiClient]:
    yield client_for(api.url, api.key)


@pytest.mark.parametrize("path", sorted(ROUTES))
@pytest.mark.parametrize(("repo", "why"), [
    ("file:///etc", "file:// URLs are not cloned"),
    ("http://10.0.0.5/internal.git", "http:// URLs are not cloned"),
    ("ext::sh -c id", "ext:: transports are not cloned"),
    ("--upload-pack=id", "cannot start with '-'"),
    ("relative/path", "neither a remote nor an absolute path"),
])
def test_a_repo_no_machine_may_take_is_refused_with_a_400(
        client: ApiClient, container: Container, path: str, repo: str, why: str) -> None:
    heartbeat(client, "m1")

    with pytest.raises(ApiError) as refused:
        client.post(path, {**ROUTES[path], "repo": repo})

    assert refused.value.status == 400
    assert why in refused.value.message
    assert client.get("/api/tasks")["tasks"] == []


@pytest.mark.parametrize("repo", ["https://github.com/acme/app.git", "ssh://git@github.com/acme/app.git",
                                  "git@github.com:acme/app.git", "/home/me/src/app", "@buildbox:/srv/app"])
def test_allowed_remotes_absolute_paths_and_ssh_targets_are_accepted(client: ApiClient, repo: str) -> None:
    task: dict[str, Any] = client.post("/api/tasks", {**ROUTES["/api/tasks"], "repo": repo})

    assert task["repo"] == repo
