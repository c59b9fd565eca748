"""The SSH target registry: machines register the targets they can reach, users list them.

A target name is unique across machines: a second machine registering the same name is
refused (409), so `/ssh <name>` always means one host reached from one machine.
"""

from __future__ import annotations

from chalicelib.kernel.errors import Conflict, NotFound, or_not_found
from chalicelib.kernel.logging import get_logger
from chalicelib.ssh.domain.ssh_model import SshTarget, check_target
from chalicelib.ssh.services.ports import SshUnitOfWorkFactory


class SshTargets:
    def __init__(self, uow: SshUnitOfWorkFactory) -> None:
        self._uow = uow

    def register(self, target: SshTarget) -> tuple[SshTarget, bool]:
        """Create or update a target of the registering machine; True when it is new."""
        target = check_target(target)
        with self._uow() as uow:
            existing = uow.targets.get(target.name)
            if existing is not None and existing.machine_id != target.machine_id:
                raise Conflict(f"target {target.name} belongs to machine {existing.machine_id}; "
                               "remove it there first or choose another name")
            stored = uow.targets.upsert(target)
            uow.commit()
        get_logger().info("ssh target registered", extra={
            "target": target.name, "machine_id": target.machine_id, "pinned": target.fingerprint is not None})
        return stored, existing is None

    def get(self, name: str) -> SshTarget:
        with self._uow() as uow:
            target = uow.targets.get(name)
        return or_not_found(target, f"no SSH target named {name}; "
                                    f"`itachi ssh add {name} --host ...` registers one")

    def for_machine(self, machine_id: str) -> SshTarget:
        """The target `/exec @machine` uses: one that reaches the machine, else one named after it."""
        with self._uow() as uow:
            reaching = uow.targets.reaching(machine_id)
            named = uow.targets.get(machine_id)
        if reaching:
            return reaching[0]
        if named is not None:
            return named
        raise NotFound(f"no SSH target reaches machine {machine_id}: on a machine that can reach it, run "
                       f"`itachi ssh add {machine_id} --host ... --machine {machine_id}`")

    def listing(self) -> list[SshTarget]:
        with self._uow() as uow:
            return uow.targets.listing()

    def remove(self, name: str, machine_id: str) -> None:
        with self._uow() as uow:
            target = or_not_found(uow.targets.get(name), f"no SSH target named {name}")
            if target.machine_id != machine_id:
                raise Conflict(f"target {name} belongs to machine {target.machine_id}")
            uow.targets.delete(name)
            uow.commit()
