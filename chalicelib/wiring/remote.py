"""Encrypted file sync and SSH targets with their one-off command runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import remote as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.remote")


def _ssh_runs(c: Container) -> kit.SshRuns:
    output: kit.RunOutput = (kit.ChatStreamPublisher(c.topic_streams) if c.telegram_enabled
                             else kit.NullRunOutput())
    return kit.SshRuns(kit.ssh_units(c.db), c.ssh_targets, c.task_queues.send_to_machine, output, kit.redact,
                       machine_online=c.machine_registry.is_online)


class RemoteWiring(CoreWiring):
    # End-to-end encrypted file sync: ciphertext only (docs/sync.md).
    file_sync: kit.FileSync = provide(lambda c: kit.FileSync(kit.sync_units(c.db)))
    # SSH targets and one-off command runs (/ssh, /exec): machines connect, the server routes.
    ssh_targets: kit.SshTargets = provide(lambda c: kit.SshTargets(kit.ssh_units(c.db)))
    ssh_runs: kit.SshRuns = provide(_ssh_runs)
