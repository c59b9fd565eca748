"""Project identity over real temporary git repositories and worktrees."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from chalicelib.contracts.project_identity import normalise_remote_url, project_for

pytestmark = pytest.mark.unit


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Itachi Test", "-c", "user.email=test@itachi.invalid",
         "-c", "init.defaultBranch=main", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    )
    return done.stdout.strip()


def make_repo(root: Path, remote: str | None = None) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    (root / "README.md").write_text("hello\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "first")
    if remote:
        git(root, "remote", "add", "origin", remote)
    return root


@pytest.fixture(autouse=True)
def _no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ITACHI_PROJECT", raising=False)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Acme/Repo.git", "github.com/acme/repo"),
        ("https://github.com/acme/repo", "github.com/acme/repo"),
        ("https://github.com/acme/repo.git/", "github.com/acme/repo"),
        ("ssh://git@host/acme/repo.git", "host/acme/repo"),
        ("ssh://git@Host.Example:2222/Acme/Repo.git", "host.example/acme/repo"),
        ("https://user:s3cret@gitlab.com/group/sub/proj.git", "gitlab.com/group/sub/proj"),
        ("git://example.org/pub/tool", "example.org/pub/tool"),
        ("file:///srv/git/Tool.git", "srv/git/tool"),
        ("/srv/git/tool.git", "srv/git/tool"),
        ("C:\\repos\\Tool.git", "c:/repos/tool"),
        ("", ""),
    ],
)
def test_remote_urls_normalise_to_lowercase_host_and_path(url: str, expected: str) -> None:
    assert normalise_remote_url(url) == expected


def test_credentials_never_survive_normalisation() -> None:
    assert "s3cret" not in normalise_remote_url("https://bot:s3cret@github.com/acme/repo")


def test_itachi_project_overrides_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", "git@github.com:Acme/Repo.git")
    monkeypatch.setenv("ITACHI_PROJECT", "my-project")
    assert project_for(repo) == "my-project"


def test_a_repo_with_an_origin_is_named_by_its_normalised_remote(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "git@github.com:Acme/Repo.git")
    (repo / "src" / "deep").mkdir(parents=True)
    assert project_for(repo) == "github.com/acme/repo"
    assert project_for(repo / "src" / "deep") == "github.com/acme/repo"


def test_only_the_origin_remote_names_the_project(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    git(repo, "remote", "add", "upstream", "https://github.com/other/thing")
    git(repo, "remote", "add", "origin", "https://github.com/acme/mine")
    assert project_for(repo) == "github.com/acme/mine"


def test_a_repo_without_remote_is_named_by_its_root_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "Widget")
    (repo / "pkg").mkdir()
    assert project_for(repo / "pkg") == "Widget"


def test_every_worktree_maps_to_the_main_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "main-repo")
    worktree = tmp_path / "elsewhere" / "feature-x"
    git(repo, "worktree", "add", "-q", "-b", "feature-x", str(worktree))
    (worktree / "sub").mkdir()
    assert project_for(worktree) == "main-repo"
    assert project_for(worktree / "sub") == "main-repo"
    common = Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    assert common.parent.name == project_for(worktree)


def test_a_worktree_of_a_repo_with_a_remote_shares_the_remote_name(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", "https://github.com/Acme/Repo")
    worktree = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "topic", str(worktree))
    assert project_for(worktree) == project_for(repo) == "github.com/acme/repo"


def test_a_directory_outside_any_repository_is_named_by_itself(tmp_path: Path) -> None:
    plain = tmp_path / "just-a-folder"
    plain.mkdir()
    assert project_for(plain) == "just-a-folder"


def test_identity_is_read_from_the_repository_files_without_running_git(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What keeps it cheap in a hook: no `git` process (its cost is in bench/hooks_overhead.py)."""
    repo = make_repo(tmp_path / "repo", "git@github.com:Acme/Repo.git")
    deep = repo / "a" / "b" / "c"
    deep.mkdir(parents=True)
    monkeypatch.setenv("PATH", "")  # a `git` process could not even start

    assert project_for(deep) == "github.com/acme/repo"
