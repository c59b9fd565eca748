"""Messages to a run or a profile, from a user or another agent.

To an active run: stored (numbered) and relayed to its machine, whose agent writes it as the
engine's next turn; the agent reports each delivery as an `input` event, which `reconcile` reads.
A message that arrives before the run started goes into its first prompt (the enricher). To a
finished run: a follow-up run of the same profile gets it. To a profile: its latest active run,
or a new run whose task is the message.
"""

from __future__ import annotations

from dataclasses import dataclass

from chalicelib.agents.domain.records import ACTIVE, AgentMessage, AgentRun, follow_up_prompt
from chalicelib.agents.services.ports import AgentsUnits, AgentTasks
from chalicelib.agents.services.runs import SpawnRequest, SubagentRuns
from chalicelib.kernel.errors import InvalidInput

MAX_BODY = 10_000
SENDER_MAX = 100


@dataclass(frozen=True)
class Delivery:
    message: AgentMessage
    run: AgentRun
    delivery: str  # relayed | waiting | follow_up | new_run


class AgentMessaging:
    def __init__(self, units: AgentsUnits, tasks: AgentTasks, runs: SubagentRuns) -> None:
        self._units, self._tasks, self._runs = units, tasks, runs

    def send(self, body: str, *, run: str | None = None, profile: str | None = None,
             sender: str = "user") -> Delivery:
        body, sender = body.strip(), (sender.strip() or "user")[:SENDER_MAX]
        if not body or len(body) > MAX_BODY:
            raise InvalidInput(f"a message is 1 to {MAX_BODY} characters", field="body")
        if (run is None) == (profile is None):
            raise InvalidInput("send a message to a run or to a profile", field="run")
        if run is None:
            assert profile is not None
            with self._units() as uow:
                target = uow.runs.latest_active(self._runs_profile(profile))
            if target is None:
                spawned = self._runs.spawn(SpawnRequest(profile, body, origin="message"))
                return Delivery(self._append(spawned, sender, body, "delivered"), spawned, "new_run")
        else:
            target = self._runs.get(run)
        if target.status != ACTIVE:
            return self.follow_up(target, [self._append(target, sender, body)])
        message = self._append(target, sender, body)
        relayed = target.task_id is not None and self._tasks.relay_input(target.task_id, message.seq, body)
        return Delivery(message, target, "relayed" if relayed else "waiting")

    def follow_up(self, run: AgentRun, messages: list[AgentMessage]) -> Delivery:
        """A follow-up run for messages its run can no longer take."""
        spawned = self._runs.spawn(SpawnRequest(
            run.profile, follow_up_prompt(run, messages), project=run.project, repo=run.repo,
            machine=run.target_machine, origin="message", parent_run_id=run.id,
            telegram_chat_id=run.telegram_chat_id, idempotency_key=f"follow-up:{run.id}:{messages[-1].seq}"))
        with self._units() as uow:
            uow.messages.mark(run.id, [m.seq for m in messages], "followed_up", spawned.id)
            uow.commit()
        return Delivery(messages[-1], spawned, "follow_up")

    def messages(self, ref: str) -> list[AgentMessage]:
        return self.reconcile(self._runs.get(ref))

    def reconcile(self, run: AgentRun) -> list[AgentMessage]:
        """Mark the messages the run's agent reported delivered (its task's `input` events)."""
        with self._units() as uow:
            messages = uow.messages.for_run(run.id)
        waiting = {m.seq for m in messages if m.status == "pending"}
        if waiting and run.task_id is not None:
            events = self._tasks.events(run.task_id, limit=1000)
            seqs = {int(e.data.get("message_seq", 0)) for e in events if e.kind == "input"} & waiting
            if seqs:
                with self._units() as uow:
                    uow.messages.mark(run.id, sorted(seqs), "delivered")
                    messages = uow.messages.for_run(run.id)
                    uow.commit()
        return messages

    def _append(self, run: AgentRun, sender: str, body: str, status: str = "pending") -> AgentMessage:
        with self._units() as uow:
            message = uow.messages.append(run.id, sender, body)
            if status != "pending":
                uow.messages.mark(run.id, [message.seq], status)
            uow.commit()
        return message

    def _runs_profile(self, name: str) -> str:
        return self._runs.profile(name).name
