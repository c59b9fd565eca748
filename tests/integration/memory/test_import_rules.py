"""`itachi import-rules` on a repository holding every rule file it knows, against a running API."""

from __future__ import annotations

import json
import random
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.integration.memory.test_memory_cli import itachi

PROJECT = "github.com/acme/imported"
FILES = {
    "CLAUDE.md": "# Project\n\nThis service sends invoices.\n\n- Run make test before every push.\n",
    ".claude/CLAUDE.md": "- Keep modules under 200 lines.\n",
    "AGENTS.md": "## Conventions\n\n1. Use UTC timestamps everywhere.\n",
    ".cursorrules": "- Prefer pathlib over os.path.\n",
    ".cursor/rules/python.mdc": "---\ndescription: Python\nglobs: \"*.py\"\nalwaysApply: false\n---\n"
                                "- Type every public function.\n```\n- not a rule, an example\n```\n",
    ".github/copilot-instructions.md": "- Write test names as sentences.\n",
    ".clinerules": "- Never commit secrets to the repository.\n",
    "memory-bank/techContext.md": "# Tech context\n\nPython 3.11, Postgres 16 with pgvector.\n",
    "memory-bank/activeContext.md": "# Active context\n\nMoving the billing job to the queue.\n",
    ".windsurfrules": "- Document every route in docs/api.md.\n",
    ".windsurf/rules/style.md": "- Keep lines under 110 characters.\n",
}
RULES = ["Run make test before every push.", "Keep modules under 200 lines.",
         "Use UTC timestamps everywhere.", "Prefer pathlib over os.path.", "Type every public function.",
         "Write test names as sentences.", "Never commit secrets to the repository.",
         "Document every route in docs/api.md.", "Keep lines under 110 characters."]


@pytest.fixture(autouse=True)
def warm(api: RunningApi) -> None:
    api.container.warm_up()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "imported"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def get(api: RunningApi, path: str, **query: Any) -> Any:
    request = urllib.request.Request(f"{api.url}{path}?{urllib.parse.urlencode(query)}", headers=api.headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def run(api: RunningApi, repo: Path, *flags: str) -> dict[str, Any]:
    done = itachi(api, "import-rules", str(repo), "--project", PROJECT, "--json", *flags, cwd=repo)
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)["answers"]
    return {"items": [i for a in answers for i in a["items"]], "added": sum(a["added"] for a in answers)}


def rules(api: RunningApi) -> list[str]:
    """The project's instructions: the files' rules and their guideline paragraphs, one list."""
    return [r["text"] for r in get(api, "/api/rules", project=PROJECT)["rules"]]


def test_import_rules_shows_what_it_would_add_then_adds_each_rule_once_and_a_second_run_adds_nothing(
    api: RunningApi, repo: Path
) -> None:
    preview = run(api, repo, "--dry-run")
    assert preview["added"] == 0 and {i["status"] for i in preview["items"]} == {"new"}
    assert sorted(i["content"] for i in preview["items"] if i["category"] == "project_rule") == sorted(RULES)
    assert "not a rule, an example" not in json.dumps(preview)
    assert get(api, "/api/memory/stats", project=PROJECT)["total"] == 0

    first = run(api, repo)
    assert first["added"] == len(preview["items"]) == len(RULES) + 3  # 9 rules, 1 guideline, 2 bank sections
    assert sorted(rules(api)) == sorted([*RULES, "This service sends invoices."])
    contexts = get(api, "/api/memory/recent", project=PROJECT, category="project_context")["results"]
    assert sorted(m["content"] for m in contexts) == [
        "activeContext / Active context: Moving the billing job to the queue.",
        "techContext / Tech context: Python 3.11, Postgres 16 with pgvector."]
    assert all(m["source"] == "import" and m["trusted"] for m in contexts)
    assert {m["metadata"]["imported_from"] for m in contexts} == {"cline"}
    guideline = get(api, "/api/memory/recent", project=PROJECT, category="guideline")["results"]
    assert [(m["content"], m["metadata"]["import_path"]) for m in guideline] == [
        ("This service sends invoices.", "CLAUDE.md")]

    second = run(api, repo)
    assert second["added"] == 0 and {i["status"] for i in second["items"]} == {"exists"}
    assert get(api, "/api/memory/stats", project=PROJECT)["total"] == first["added"]
    assert sorted(rules(api)) == sorted([*RULES, "This service sends invoices."])
    text = itachi(api, "import-rules", str(repo), "--project", PROJECT, "--dry-run", cwd=repo).stdout
    assert f"{PROJECT}: would add 0, already known {first['added']}" in text


def test_reimporting_a_file_of_more_rules_than_one_request_holds_retires_none_and_keeps_their_lines(
    api: RunningApi, tmp_path: Path
) -> None:
    # 230 rules of unrelated words (no two alike enough for the reconciler to merge them).
    rng = random.Random(9)
    words = sorted(w for w in sys.stdlib_module_names if w.isalpha() and len(w) > 3)
    many = [f"Always {rng.choice(['run', 'check', 'keep', 'write', 'review', 'test', 'pin', 'log'])} "
            + " ".join(rng.sample(words, 3)) for _ in range(230)]
    root = tmp_path / "big"
    root.mkdir()
    (root / "CLAUDE.md").write_text("# Rules\n\n" + "".join(f"- {rule}\n" for rule in many))

    first = itachi(api, "import-rules", str(root), "--project", PROJECT, "--json", cwd=root)
    again = itachi(api, "import-rules", str(root), "--project", PROJECT, "--json", cwd=root)

    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    answers = json.loads(again.stdout)["answers"]
    assert [a.get("retired") for a in answers] == [[]]
    assert {i["status"] for a in answers for i in a["items"]} == {"exists"}
    listed = get(api, "/api/rules", project=PROJECT, limit=200)["rules"]
    assert len(listed) == 200
    assert all(r["file"] == {"path": "CLAUDE.md", "line": many.index(r["text"]) + 3} for r in listed)
