"""The policy scanner (checkov, pinned in requirements-scan.txt, in .venv-scan) finds nothing in
either stage's template, apart from the checks infra/checkov.yaml skips, each justified in
docs/deploy.md. The scan runs with `make scan` (marked `scan`, outside `make test`: the scanner's
virtualenv and the scan cost minutes); the suppression list is checked against the docs in every run."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from infra.package import render_template
from infra.template import dump
from tests.conftest import REPO_ROOT

CHECKOV = REPO_ROOT / ".venv-scan" / "bin" / "checkov"
CONFIG = REPO_ROOT / "infra" / "checkov.yaml"


def skipped_checks() -> list[str]:
    return re.findall(r"^\s*-\s*(CKV_[A-Z0-9_]+)", CONFIG.read_text(), re.MULTILINE)


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    assert CHECKOV.exists(), "the policy scanner is not installed: run `make scan`"
    templates = tmp_path_factory.mktemp("templates")
    for stage in ("dev", "prod"):
        dump(render_template(stage, tmp_path_factory.mktemp(f"work-{stage}")), templates / f"{stage}.json")
    result = subprocess.run([str(CHECKOV), "--config-file", str(CONFIG), "-d", str(templates), "--quiet",
                             "-o", "json"], capture_output=True, text=True, timeout=900, check=False)
    report = json.loads(result.stdout)
    return report if isinstance(report, list) else [report]


@pytest.mark.scan
def test_the_scanner_passes_both_stages_with_only_the_listed_suppressions(scan: list[dict[str, Any]]) -> None:
    [cloudformation] = [r for r in scan if r["check_type"] == "cloudformation"]
    summary = cloudformation["summary"]
    failed = [(f["check_id"], f["resource"]) for f in cloudformation["results"]["failed_checks"]]
    assert failed == [], failed
    assert summary["parsing_errors"] == 0 and summary["resource_count"] > 100
    assert summary["passed"] > 100
    skipped = {f["check_id"] for f in cloudformation["results"].get("skipped_checks", [])}
    assert skipped <= set(skipped_checks())


def test_every_suppression_is_justified_in_the_deploy_docs() -> None:
    docs = (REPO_ROOT / "docs" / "deploy.md").read_text()
    section = docs.split("## Policy scanner", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(CKV_[A-Z0-9_]+)` \| (.+) \|$", section, re.MULTILINE))
    assert set(skipped_checks()) == set(rows)
    assert all(len(reason) > 40 for reason in rows.values())


def test_the_database_publicly_accessible_check_runs_for_every_stage() -> None:
    assert "CKV_AWS_17" not in skipped_checks()
