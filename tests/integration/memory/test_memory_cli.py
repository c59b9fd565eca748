"""`itachi search / remember / forget / index` as a user runs them, against a running API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, RunningApi


def itachi(api: RunningApi, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ITACHI_API_URL": api.url, "ITACHI_API_KEY": api.key,
           "ITACHI_HOME": str((cwd or REPO_ROOT) / ".itachi-home"), "PYTHONPATH": str(REPO_ROOT)}
    env.pop("ITACHI_PROJECT", None)
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], cwd=cwd or REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_remember_search_and_forget_from_the_command_line(api: RunningApi) -> None:
    stored = itachi(api, "remember", "The", "release", "train", "leaves", "on", "Thursdays.",
                    "--project", "cli", "--category", "decision")
    assert stored.returncode == 0, stored.stderr
    memory_id = stored.stdout.strip().split(": ")[1]
    found = itachi(api, "search", "when does the release train leave", "--project", "cli", "-l", "5")
    assert found.returncode == 0 and "[decision] The release train leaves on Thursdays." in found.stdout
    answer = json.loads(itachi(api, "search", "release train", "--project", "cli", "--json").stdout)
    assert answer["mode"] == "hybrid" and answer["results"][0]["id"] == memory_id
    exact = json.loads(itachi(api, "search", "Thursdays", "--project", "cli", "--exact", "--json").stdout)
    assert exact["mode"] == "text" and len(exact["results"]) == 1
    again = itachi(api, "remember", "the release train leaves on thursdays.", "--project", "cli",
                   "--category", "decision")
    assert again.stdout.startswith("already known, reinforced")
    assert itachi(api, "forget", memory_id).returncode == 0
    assert "No memories match." in itachi(api, "search", "release train", "--project", "cli").stdout
    missing = itachi(api, "forget", memory_id)
    assert missing.returncode == 1 and "no memory" in missing.stderr


def test_the_default_project_is_the_git_remote_of_the_working_directory(api: RunningApi,
                                                                        tmp_path: Path) -> None:
    repo = tmp_path / "work"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = git@github.com:Acme/Rocket.git\n')
    assert itachi(api, "remember", "Rockets need fuel.", cwd=repo).returncode == 0
    answer = json.loads(itachi(api, "search", "fuel", "--json", "--project", "github.com/acme/rocket").stdout)
    assert [r["project"] for r in answer["results"]] == ["github.com/acme/rocket"]


MEMORY_MD = "# Memory\n## Tools\nWe use uv for installs.\n## People\n{owner} owns CI.\n"


def test_index_chunks_markdown_and_reindexes_only_what_changed(api: RunningApi, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "MEMORY.md").write_text(MEMORY_MD.format(owner="Alice"))
    steps = "\n".join(f"step {i}: check the queue depth" for i in range(200))
    (notes / "runbook.md").write_text("# Runbook\n" + steps)
    (notes / "ignore.txt").write_text("not markdown")
    first = itachi(api, "index", str(notes), "--project", "docs")
    assert first.returncode == 0, first.stderr
    assert "MEMORY.md: 2 chunks, +2 -0 =0" in first.stdout and "runbook.md" in first.stdout
    assert "ignore.txt" not in first.stdout
    assert "unchanged" in itachi(api, "index", str(notes / "MEMORY.md"), "--project", "docs").stdout
    (notes / "MEMORY.md").write_text(MEMORY_MD.format(owner="Bob"))
    changed = itachi(api, "index", str(notes / "MEMORY.md"), "--project", "docs")
    assert "MEMORY.md: 2 chunks, +1 -1 =1" in changed.stdout
    answer = json.loads(itachi(api, "search", "who owns CI", "--project", "docs", "--json").stdout)
    top = answer["results"][0]
    assert top["content"] == "Memory > People\n\nBob owns CI."
    assert top["metadata"]["heading_path"] == ["Memory", "People"]
    assert top["metadata"]["source_path"].endswith("MEMORY.md")
    assert all("Alice" not in r["content"] for r in answer["results"])
