"""The one rule of which repositories a task or session may name (server and agent share it)."""

from __future__ import annotations

import pytest

from chalicelib.contracts.repo_source import RepoRefused, looks_remote, repo_source


@pytest.mark.parametrize(("spec", "kind"), [
    ("https://github.com/acme/app.git", "remote"),
    ("https://user@git.example.com:8443/acme/app", "remote"),
    ("ssh://git@github.com/acme/app.git", "remote"),
    ("ssh://git@[2001:db8::1]:2222/acme/app.git", "remote"),
    ("git@github.com:acme/app.git", "remote"),
    ("/home/me/src/app", "local"),
    ("~/src/app", "local"),
    ("C:\\Users\\me\\src\\app", "local"),
    ("@buildbox:/srv/src/webapp", "ssh_target"),
])
def test_allowed_remotes_paths_and_ssh_targets_are_classified(spec: str, kind: str) -> None:
    assert repo_source(spec).kind == kind


@pytest.mark.parametrize(("spec", "why"), [
    ("file:///etc", "file:// URLs are not cloned"),
    ("http://10.0.0.5/internal/repo.git", "http:// URLs are not cloned"),
    ("git://github.com/acme/app.git", "git:// URLs are not cloned"),
    ("FILE:///etc", "file:// URLs are not cloned"),
    ("ext::sh -c touch% /tmp/pwned", "ext:: transports are not cloned"),
    ("fd::3", "fd:: transports are not cloned"),
    ("--upload-pack=touch /tmp/pwned", "cannot start with '-'"),
    ("-uexploit", "cannot start with '-'"),
    ("ssh://-oProxyCommand=touch%20x/acme/app", "needs a host"),
    ("https://github.com", "needs a host and a repository path"),
    ("git@-oProxyCommand=x:acme/app", "not a valid git@host:path"),
    ("git@github.com:-acme/app", "not a valid git@host:path"),
    ("src/app", "neither a remote nor an absolute path"),
    ("github.com:acme/app", "neither a remote nor an absolute path"),
    ("/src/app\n--bare", "absolute path"),
    ("https://github.com/acme/app .git", "spaces"),
])
def test_other_transports_options_and_relative_paths_are_refused_saying_why(spec: str, why: str) -> None:
    with pytest.raises(RepoRefused, match=why.replace("(", r"\(")) as refused:
        repo_source(spec)
    assert "https://, ssh:// or git@host:path" in str(refused.value) or why in str(refused.value)


@pytest.mark.parametrize(("spec", "remote"), [
    ("https://github.com/acme/app", True), ("file:///etc", True), ("ext::sh", True),
    ("git@github.com:acme/app", True), ("@buildbox:/srv/app", True),
    ("/home/me/app", False), ("app", False), ("../app", False),
])
def test_the_cli_tells_a_remote_from_a_path_to_resolve(spec: str, remote: bool) -> None:
    assert looks_remote(spec) is remote
