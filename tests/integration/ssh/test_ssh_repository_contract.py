"""The SSH services' contract suite on real Postgres (the same suite runs in memory)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chalicelib.kernel.database import Database
from chalicelib.kernel.redaction import redact
from chalicelib.ssh.adapters.ssh_repositories import ssh_units
from chalicelib.ssh.services.ssh_runs import SshRuns
from chalicelib.ssh.services.ssh_targets import SshTargets
from tests.fakes.in_memory_ssh import RecordingOutput
from tests.support.ssh_contract import Services, SshContract


@pytest.fixture
def services(database_url: str) -> Iterator[Services]:
    db = Database(database_url, min_size=1, max_size=4)
    sent: list[tuple[str, dict[str, Any]]] = []
    output = RecordingOutput()
    registry = SshTargets(ssh_units(db))
    runs = SshRuns(ssh_units(db), registry, lambda m, body: sent.append((m, body)),
                   output, redact)
    yield registry, runs, sent, output
    db.close()


class TestSshOnPostgres(SshContract):
    pass
