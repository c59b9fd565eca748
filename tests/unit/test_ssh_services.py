"""The SSH services over in-memory repositories (the same suite runs on Postgres)."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.kernel.redaction import redact
from chalicelib.ssh.services.ssh_runs import SshRuns
from chalicelib.ssh.services.ssh_targets import SshTargets
from tests.fakes.in_memory_ssh import (
    InMemorySshRuns,
    InMemorySshTargets,
    InMemorySshUnitOfWork,
    RecordingOutput,
)
from tests.support.ssh_contract import Services, SshContract


@pytest.fixture
def services() -> Services:
    targets, runs = InMemorySshTargets(), InMemorySshRuns()
    sent: list[tuple[str, dict[str, Any]]] = []
    output = RecordingOutput()

    def unit() -> InMemorySshUnitOfWork:
        return InMemorySshUnitOfWork(targets, runs)

    registry = SshTargets(unit)
    service = SshRuns(unit, registry, lambda m, body: sent.append((m, body)), output, redact)
    return registry, service, sent, output


class TestSshInMemory(SshContract):
    pass
