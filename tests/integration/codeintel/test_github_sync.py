"""GitHub sync against the fake GitHub server: the repos registry, paged, changed only when
GitHub's answer changed; `/repos` and the default branch of a project read it back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chalicelib.bootstrap import Container, set_container
from chalicelib.kernel.schedule_table import SCHEDULES
from infra.local.scheduler import run_schedule_once
from tests.fakes.fake_github import TOKEN, FakeGitHub, github_repo
from tests.support.codeintel_world import state
from tests.support.local_stack import make_container, settings_for_test

SYNC = next(s for s in SCHEDULES if s.name == "github-sync")


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    repos = [github_repo("acme", f"service-{i:03d}") for i in range(150)]
    repos.append(github_repo("acme", "billing", default_branch="develop", private=True))
    with FakeGitHub(repos) as fake:
        yield fake


@pytest.fixture
def synced(tmp_path: Path, database_url: str, github: FakeGitHub) -> Iterator[Container]:
    settings = settings_for_test(tmp_path / "home", database_url, None).replace(
        github_token=TOKEN, github_api_url=github.api_url
    )
    container = make_container(settings, with_queues=False)
    set_container(container)
    yield container
    set_container(None)
    container.close()


def test_the_registry_gets_every_repository_and_its_default_branch(
    synced: Container, github: FakeGitHub
) -> None:
    first = run_schedule_once(SYNC)

    assert first == {"added": 151, "updated": 0, "unchanged": 0, "pages": 2}
    assert [r.partition("?")[0] for r in github.requests] == ["/user/repos", "/user/repos"]
    repos = synced.codeintel.github_sync.repos()
    assert len(repos) == 151
    assert synced.codeintel.github_sync.default_branch("billing") == "develop"
    assert synced.codeintel.github_sync.default_branch("github.com/acme/billing") == "develop"
    assert synced.codeintel.github_sync.default_branch("acme/service-007") == "main"


def test_a_second_sync_with_nothing_new_changes_nothing(synced: Container, github: FakeGitHub) -> None:
    run_schedule_once(SYNC)
    before = state(synced)

    second = run_schedule_once(SYNC)

    assert second == {"added": 0, "updated": 0, "unchanged": 151, "pages": 2}
    assert state(synced) == before


def test_a_changed_default_branch_is_updated(synced: Container, github: FakeGitHub) -> None:
    run_schedule_once(SYNC)
    github.repos[-1]["default_branch"] = "main"

    assert run_schedule_once(SYNC) == {"added": 0, "updated": 1, "unchanged": 150, "pages": 2}
    assert synced.codeintel.github_sync.default_branch("billing") == "main"


def test_without_a_token_the_sync_does_nothing_and_says_why(container: Container) -> None:
    before = state(container)

    result = run_schedule_once(SYNC)

    assert result == {"skipped": "no GitHub token (GITHUB_TOKEN)", "added": 0, "updated": 0, "unchanged": 0}
    assert state(container) == before


def test_a_wrong_token_fails_the_run_loudly(tmp_path: Path, database_url: str, github: FakeGitHub) -> None:
    import urllib.error

    settings = settings_for_test(tmp_path / "home", database_url, None).replace(
        github_token="ghp_wrong", github_api_url=github.api_url
    )
    container = make_container(settings, with_queues=False)
    try:
        with pytest.raises(urllib.error.HTTPError, match="401"):
            container.codeintel.github_sync.run()
    finally:
        container.close()
