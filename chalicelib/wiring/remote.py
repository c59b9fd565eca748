"""Encrypted file sync and SSH targets with their one-off command runs."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.ssh.services.ssh_runs import SshRuns
    from chalicelib.ssh.services.ssh_targets import SshTargets
    from chalicelib.sync.services.file_sync import FileSync


class RemoteWiring(CoreWiring):
    # End-to-end encrypted file sync: ciphertext only (docs/sync.md).
    @cached_property
    def file_sync(self) -> FileSync:
        from chalicelib.sync.adapters.sync_file_repository import sync_units
        from chalicelib.sync.services.file_sync import FileSync

        return FileSync(sync_units(self.db))

    # SSH targets and one-off command runs (/ssh, /exec): machines connect, the server routes.
    @cached_property
    def ssh_targets(self) -> SshTargets:
        from chalicelib.ssh.adapters.ssh_repositories import ssh_units
        from chalicelib.ssh.services.ssh_targets import SshTargets

        return SshTargets(ssh_units(self.db))

    @cached_property
    def ssh_runs(self) -> SshRuns:
        from chalicelib.kernel.redaction import redact
        from chalicelib.ssh.adapters.ssh_repositories import ssh_units
        from chalicelib.ssh.services.ports import NullRunOutput, RunOutput
        from chalicelib.ssh.services.ssh_runs import SshRuns

        output: RunOutput = NullRunOutput()
        if self.telegram_enabled:
            from chalicelib.telegram.services.chat_stream import ChatStreamPublisher

            output = ChatStreamPublisher(self.topic_streams)
        return SshRuns(ssh_units(self.db), self.ssh_targets,
                       self.task_queues.send_to_machine, output, redact,
                       machine_online=self.machine_registry.is_online)
