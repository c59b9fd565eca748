"""One-off commands on SSH targets, asked for from the chat and run by the target's machine.

A request becomes a run: queued at once when the target has no allow-list or the command is
on it, else awaiting the confirmation button. A queued run is sent to the owning machine's
queue after commit; its agent claims it, connects (verifying the pinned host key), and
reports output in numbered batches (a retried batch is ignored) and then the ending. Output
and ending go to the chat that asked, redacted, and are never stored beyond the chat's outbox.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from chalicelib.contracts.machine_messages import SSH_RUN, MachineMessage
from chalicelib.kernel.errors import Conflict, InvalidInput, NotFound, Unavailable, or_not_found
from chalicelib.kernel.logging import get_logger
from chalicelib.ssh.domain import run_rules as rules
from chalicelib.ssh.domain.run_story import ending, header
from chalicelib.ssh.domain.ssh_model import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, SshRun, SshTarget
from chalicelib.ssh.services.ports import RunOutput, SendToMachine, SshUnitOfWorkFactory
from chalicelib.ssh.services.ssh_targets import SshTargets

MAX_OUTPUT_CHARS_PER_BATCH = 64_000


@dataclass(frozen=True)
class RunRequest:
    command: str
    chat_id: int
    topic_id: int = 0
    user_id: int | None = None
    target: str | None = None  # /ssh <target>
    machine: str | None = None  # /exec @<machine>
    timeout_s: int = DEFAULT_TIMEOUT_S


class SshRuns:
    def __init__(self, uow: SshUnitOfWorkFactory, targets: SshTargets, send: SendToMachine,
                 output: RunOutput, redact: Callable[[str], str],
                 machine_online: Callable[[str], bool] = lambda _machine: True) -> None:
        self._uow, self._targets, self._send = uow, targets, send
        self._output, self._redact, self._online = output, redact, machine_online

    def request(self, req: RunRequest) -> SshRun:
        if not 1 <= req.timeout_s <= MAX_TIMEOUT_S:
            raise InvalidInput(f"timeout: 1-{MAX_TIMEOUT_S} seconds", field="timeout_s")
        command = rules.check_command(req.command)
        target = self._targets.get(req.target) if req.target else self._targets.for_machine(str(req.machine))
        if not self._online(target.machine_id):  # its run would wait in a queue nobody reads
            raise Unavailable(f"{target.machine_id}, the machine that reaches {target.name}, is offline: "
                              "start its agent (itachi agent, or itachi up) and try again")
        direct = not target.allowed_commands or rules.on_allow_list(command, target.allowed_commands)
        run = SshRun(str(uuid.uuid4()), target.name, target.machine_id, command,
                     rules.QUEUED if direct else rules.AWAITING, req.timeout_s, target.platform,
                     chat_id=req.chat_id, topic_id=req.topic_id, requested_by=req.user_id)
        with self._uow() as uow:
            run = uow.runs.add(run)
            if direct:
                uow.after_commit(lambda: self._dispatch(run))
            uow.commit()
        get_logger().info("ssh run requested", extra={"run_id": run.id, "target": run.target,
                                                      "status": run.status})
        return run

    def confirm(self, run_id: str, yes: bool) -> SshRun:
        """The confirmation button: queue the run, or cancel it. A second press changes nothing."""
        with self._uow() as uow:
            run = self._get(uow, run_id)
            if run.status != rules.AWAITING:
                done = "cancelled" if run.status == rules.CANCELLED else "started"
                raise Conflict(f"This command was already {done}.")
            run = uow.runs.update(run_id, status=rules.QUEUED if yes else rules.CANCELLED)
            if yes:
                uow.after_commit(lambda: self._dispatch(run))
            uow.commit()
        return run

    def claim(self, run_id: str, machine_id: str) -> tuple[SshRun, SshTarget]:
        """The agent starts the run: only the target's machine, only once."""
        with self._uow() as uow:
            run = self._mine(uow, run_id, machine_id)
            rules.check_move(run.status, rules.RUNNING)
            run = uow.runs.update(run_id, status=rules.RUNNING, started_at="now")
            target = uow.targets.get(run.target)
            uow.commit()
        if target is None:
            raise NotFound(f"target {run.target} was removed")
        return run, target

    def record_output(self, run_id: str, machine_id: str, seq: int, events: Sequence[dict[str, Any]]) -> bool:
        """Show one batch of output; False for a batch already shown (a retried post)."""
        with self._uow() as uow:
            run = self._mine(uow, run_id, machine_id)
            if seq <= run.output_seq:
                return False
            if run.status != rules.RUNNING:
                raise Conflict(f"the run is {run.status}")
            run = uow.runs.update(run_id, output_seq=seq)
            texts = [self._redact(str(e.get("text") or ""))[:MAX_OUTPUT_CHARS_PER_BATCH] for e in events]
            texts = [t for t in texts if t.strip()]
            if texts:
                uow.after_commit(lambda: self._announce(run, texts))
            uow.commit()
        return True

    def finish(self, run_id: str, machine_id: str, status: str, exit_code: int | None, error: str | None,
               duration_s: float | None = None) -> SshRun:
        """The ending, reported once; the same report again answers the stored run."""
        if status not in rules.ENDINGS:
            raise InvalidInput(f"status: one of {', '.join(sorted(rules.ENDINGS))}", field="status")
        with self._uow() as uow:
            run = self._mine(uow, run_id, machine_id)
            if run.status == status:
                return run
            rules.check_move(run.status, status)
            error_text = self._redact(error)[:2000] if error else None
            run = uow.runs.update(run_id, status=status, exit_code=exit_code, error=error_text,
                                  finished_at="now")
            uow.after_commit(lambda: self._announce(run, [ending(run, duration_s)]))
            uow.commit()
        get_logger().info("ssh run finished", extra={"run_id": run.id, "status": status,
                                                     "exit_code": exit_code})
        return run

    def get(self, run_id: str) -> SshRun:
        with self._uow() as uow:
            return self._get(uow, run_id)

    def recent(self, limit: int = 20) -> list[SshRun]:
        with self._uow() as uow:
            return uow.runs.recent(limit)

    def _dispatch(self, run: SshRun) -> None:
        self._announce(run, [header(run)])
        self._send(run.machine_id, MachineMessage(SSH_RUN, run_id=run.id).to_body())

    def _announce(self, run: SshRun, texts: list[str]) -> None:
        if run.chat_id is not None:
            self._output.post(run.stream, run.chat_id, run.topic_id, texts)

    @staticmethod
    def _get(uow: Any, run_id: str) -> SshRun:
        try:
            uuid.UUID(run_id)
        except ValueError:
            raise InvalidInput("run id: a UUID", field="run_id") from None
        run = or_not_found(uow.runs.get(run_id, for_update=True), f"no SSH run {run_id}")
        return run  # type: ignore[no-any-return]

    def _mine(self, uow: Any, run_id: str, machine_id: str) -> SshRun:
        run = self._get(uow, run_id)
        if run.machine_id != machine_id:
            raise Conflict(f"run {run_id} belongs to machine {run.machine_id}")
        return run
