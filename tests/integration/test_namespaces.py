"""Namespaces through the real API, the real hooks run as processes, the CLI and MCP.

A namespace `acme` of the projects web and api: a rule stored in it reaches both projects' prompts
and session briefings and not a third project's; a project rule overriding it is the one shown,
saying so; a rule promoted from a member reaches the other member; a key limited to the
namespace reads its members and its scope and is refused any other project, over REST and MCP.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import REPO_ROOT, RunningApi
from tests.integration.mcp.mcp_clients import http_client, text

WEB, API, OTHER = "github.com/acme/web", "github.com/acme/api", "github.com/someone/else"
YARN = "Use yarn, not npm, for package installs"
NPM = "Use npm, not yarn, for package installs"
PROMPT = "Which package manager should I use for package installs in this repository?"
OTHER_OWN = "We install packages with pnpm in this repository"


def call(api: RunningApi, method: str, path: str, body: Any = None, *, key: str | None = None,
         **query: Any) -> tuple[int, Any]:
    url = api.url + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {key or api.key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def teach(api: RunningApi, project: str, rule: str) -> dict[str, Any]:
    status, body = call(api, "POST", "/api/project/rules", {"project": project, "rule": rule})
    assert status == 201, body
    return body


def itachi(api: RunningApi, tmp_path: Path, *args: str) -> str:
    """Run the `itachi` CLI as a process against this API; its stdout."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "ITACHI_HOME": str(tmp_path / "cli"),
           "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key}
    done = subprocess.run([sys.executable, "-m", "agent.cli", *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, timeout=60, check=False)
    assert done.returncode == 0, (done.stdout, done.stderr)
    return done.stdout.decode()


class Hooks:
    """The real SessionStart and UserPromptSubmit hooks, run as processes for one project."""

    def __init__(self, api: RunningApi, root: Path, project: str) -> None:
        self.root = root
        self.cwd = root / "repo"
        self.cwd.mkdir(parents=True)
        self.project = project
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "ITACHI_HOME": str(root / "home"),
                    "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key,
                    "CLAUDE_CONFIG_DIR": str(root / "claude"), "ITACHI_PROJECT": project}
        self.runs = 0

    def _run(self, hook: str, payload: dict[str, Any]) -> str:
        self.runs += 1
        body = {"session_id": f"s{self.runs}", "cwd": str(self.cwd),
                "transcript_path": str(self.root / "t.jsonl"), **payload}
        done = subprocess.run([sys.executable, "-m", f"hooks.{hook}"], input=json.dumps(body).encode(),
                              cwd=REPO_ROOT, env=self.env, capture_output=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        if not done.stdout:
            return ""
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])

    def session_start(self) -> str:
        for _ in range(5):  # a busy box can miss the hook's deadline: that run injects nothing
            context = self._run("session_start", {"hook_event_name": "SessionStart", "source": "startup"})
            if context:
                return context
        raise AssertionError(f"SessionStart injected nothing for {self.project} in 5 runs")

    def prompt(self) -> str:
        for _ in range(5):  # the prompt hook's deadline is 0.5 s
            context = self._run("user_prompt_submit",
                                {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT})
            if context:
                return context
        raise AssertionError(f"UserPromptSubmit injected nothing for {self.project} in 5 runs")


@pytest.fixture
def acme(api: RunningApi, tmp_path: Path) -> RunningApi:
    """The namespace acme of web and api, made with the CLI."""
    api.container.warm_up()
    printed = itachi(api, tmp_path, "namespace", "create", "acme", "--project", WEB, "--project", API)
    assert printed.split() == ["acme", f"{API},", WEB]
    return api


def test_a_namespace_rule_reaches_both_members_prompts_and_briefings_and_not_a_third_project(
        acme: RunningApi, tmp_path: Path) -> None:
    rule = teach(acme, "ns:acme", YARN)["rule"]
    status, _ = call(acme, "POST", "/api/memory", {"project": OTHER, "category": "decision",
                                                    "content": OTHER_OWN, "source": "user"})
    assert status == 201
    hooks = {p: Hooks(acme, tmp_path / p.rsplit("/", 1)[1], p) for p in (WEB, API, OTHER)}

    for member in (WEB, API):
        briefing = hooks[member].session_start().splitlines()
        assert f"- {rule} (reinforced 1x) (acme rule)" in briefing, briefing
        assert f"- [project_rule] {rule} (today) (acme)" in hooks[member].prompt().splitlines()
    outsider = hooks[OTHER].session_start()
    assert "yarn" not in outsider and "_No project rules learned yet._" in outsider
    prompted = hooks[OTHER].prompt().splitlines()
    assert f"- [decision] {OTHER_OWN} (today)" in prompted and not any("yarn" in line for line in prompted)


def test_a_project_rule_overriding_a_namespace_rule_is_the_one_shown_with_a_note(
        acme: RunningApi, tmp_path: Path) -> None:
    shared = teach(acme, "ns:acme", YARN)["rule"]
    own = teach(acme, WEB, NPM)["rule"]

    web = Hooks(acme, tmp_path / "web", WEB).session_start().splitlines()
    assert f"- {own} (reinforced 1x) (project rule, overrides acme's)" in web, web
    assert not any(shared in line for line in web)
    api_side = Hooks(acme, tmp_path / "api", API).session_start().splitlines()
    assert f"- {shared} (reinforced 1x) (acme rule)" in api_side
    status, listed = call(acme, "GET", "/api/project/learnings", project=WEB)
    assert status == 200
    (rule,) = listed["rules"]
    assert (rule["rule"], [o["namespace"] for o in rule["overrides"]]) == (own, ["acme"])


def test_a_rule_promoted_from_one_member_reaches_the_other_once(acme: RunningApi, tmp_path: Path) -> None:
    taught = teach(acme, WEB, YARN)
    outsider = teach(acme, OTHER, NPM)["id"]
    status, refused = call(acme, "POST", "/api/namespaces/acme/rules", {"rule_id": outsider})
    assert status == 400 and OTHER in refused["message"]

    printed = itachi(acme, tmp_path, "namespace", "promote", taught["id"], "acme")
    assert f"now a rule of acme (from {WEB}" in printed
    for project in (WEB, API):
        status, listed = call(acme, "GET", "/api/project/learnings", project=project)
        assert status == 200
        assert [(r["rule"], r.get("namespace")) for r in listed["rules"]] == [(taught["rule"], "acme")]
    status, again = call(acme, "POST", "/api/namespaces/acme/rules", {"rule_id": taught["id"]})
    assert status == 409, again


def test_members_change_with_add_and_remove(acme: RunningApi, tmp_path: Path) -> None:
    teach(acme, "ns:acme", YARN)
    itachi(acme, tmp_path, "namespace", "add", "acme", OTHER)
    status, listed = call(acme, "GET", "/api/project/learnings", project=OTHER)
    assert [r.get("namespace") for r in listed["rules"]] == ["acme"]
    itachi(acme, tmp_path, "namespace", "remove", "acme", OTHER)
    status, listed = call(acme, "GET", "/api/project/learnings", project=OTHER)
    assert (status, listed["rules"]) == (200, [])
    assert itachi(acme, tmp_path, "namespace", "list").split() == ["acme", f"{API},", WEB]
    assert call(acme, "POST", "/api/namespaces", {"name": "acme"})[0] == 409
    assert call(acme, "POST", "/api/namespaces", {"name": "Not A Name"})[0] == 400
    assert call(acme, "POST", "/api/namespaces/nope/projects", {"projects": [WEB]})[0] == 404


def test_a_namespace_key_reads_its_members_and_scope_and_is_refused_elsewhere_over_rest_and_mcp(
        acme: RunningApi) -> None:
    teach(acme, "ns:acme", YARN)
    nowhere = {"name": "nope-hooks", "kind": "client", "namespaces": ["nope"]}
    assert call(acme, "POST", "/api/keys", nowhere)[0] == 404
    status, created = call(acme, "POST", "/api/keys", {"name": "acme-hooks", "kind": "client",
                                                       "namespaces": ["acme"]})
    assert status == 201 and created["namespaces"] == ["acme"]
    key = created["key"]

    for project in (WEB, API, "ns:acme"):
        status, found = call(acme, "GET", "/api/memory/search", key=key, query="package installs",
                             project=project)
        assert status == 200, found
        assert any(r["project"] == "ns:acme" for r in found["results"])
    status, refused = call(acme, "GET", "/api/memory/search", key=key, query="package installs",
                           project=OTHER)
    assert status == 403 and "namespaces acme" in refused["message"]
    assert call(acme, "GET", "/api/project/learnings", key=key, project=OTHER)[0] == 403
    assert call(acme, "POST", "/api/memory", {"project": OTHER, "content": "x"}, key=key)[0] == 403
    assert call(acme, "GET", "/api/namespaces", key=key)[0] == 403

    async def over_mcp() -> tuple[Any, Any]:
        async with http_client(acme, None, key=key) as client:
            inside = await client.call_tool("memory_search", {"query": "package installs", "project": WEB})
            outside = await client.call_tool("memory_search", {"query": "package installs", "project": OTHER})
            return inside, outside

    inside, outside = anyio.run(over_mcp)
    assert not inside.is_error and "yarn" in text(inside)
    assert outside.is_error and "namespaces acme" in text(outside)
