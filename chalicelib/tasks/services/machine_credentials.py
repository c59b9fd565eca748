"""Vend a machine's agent short-lived credentials for its own queue, and nothing else.

Which machine may ask is the access table's business (a machine key for its own machine, an
admin key): by the time `vend` runs, the caller may act for `machine_id`.
"""

from __future__ import annotations

from chalicelib.kernel.errors import InvalidInput, NotFound
from chalicelib.kernel.queue_table import valid_machine_id
from chalicelib.tasks.domain.queue_credentials import (
    LIFETIME_S,
    QueueCredentials,
    session_name,
    session_policy,
)
from chalicelib.tasks.services.ports import QueueCredentialIssuer


class MachineCredentialVendor:
    def __init__(self, issuer: QueueCredentialIssuer | None) -> None:
        self._issuer = issuer  # None: this deployment has no machine role (agents use their own AWS keys)

    def vend(self, machine_id: str) -> QueueCredentials:
        if not valid_machine_id(machine_id):
            raise InvalidInput("machine_id: 1-40 letters, digits, '-' or '_', not ending in -dlq",
                               field="machine_id")
        if self._issuer is None:
            raise NotFound("this deployment vends no machine credentials: the agent reads its queue "
                           "with its own AWS credentials")
        queue_arn = self._issuer.queue_arn(machine_id)
        if queue_arn is None:
            raise NotFound(f"machine {machine_id!r} has no queue yet: its agent's first heartbeat makes it")
        return self._issuer.issue(session_name(machine_id), session_policy(queue_arn), LIFETIME_S)
