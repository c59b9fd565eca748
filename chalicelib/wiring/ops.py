"""The brain loop, machine controls, logs and the health monitor (docs/brain.md, docs/ops.md)."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.brain.services.brain_loop import BrainLoop
    from chalicelib.brain.services.ports import BrainUnits, ProposalChannel
    from chalicelib.brain.services.proposal_decisions import ProposalDecisions
    from chalicelib.ops.domain.retention import RetentionPolicy
    from chalicelib.ops.services.health_monitor import HealthMonitor
    from chalicelib.ops.services.log_tail import LogTail
    from chalicelib.ops.services.machine_controls import MachineControls
    from chalicelib.ops.services.ports import RetentionRows


class OpsWiring(CoreWiring):
    # The brain loop: observations, proposals with Approve / Reject, the kill switch (docs/brain.md).
    @property
    def alert_chat_id(self) -> int | None:
        """Where proposals and health alerts go: the forum group, else the first allowed user."""
        s = self.settings
        if not self.telegram_enabled:
            return None
        return s.telegram_chat_id or (s.telegram_allowed_users[0] if s.telegram_allowed_users else None)

    @cached_property
    def brain_units(self) -> BrainUnits:
        from chalicelib.brain.adapters.brain_repositories import brain_units

        return brain_units(self.db)

    @cached_property
    def brain_channel(self) -> ProposalChannel:
        from chalicelib.brain.services.ports import NoChannel

        chat = self.alert_chat_id
        if chat is None:
            return NoChannel()
        from chalicelib.brain.adapters.telegram_channel import TelegramProposalChannel

        return TelegramProposalChannel(lambda: self.telegram_gateway, chat)

    @cached_property
    def brain_decisions(self) -> ProposalDecisions:
        from chalicelib.brain.adapters.brain_actions import CapabilityActions
        from chalicelib.brain.services.proposal_decisions import ProposalDecisions

        actions = CapabilityActions(lambda: self.tasks, lambda: self.queues,
                                    lambda machine: self.machine_registry.pause(machine))
        return ProposalDecisions(self.brain_units, actions, self.brain_channel)

    @cached_property
    def brain_loop(self) -> BrainLoop:
        from chalicelib.brain.adapters.brain_actions import QueueDepths
        from chalicelib.brain.services.brain_loop import BrainLoop

        return BrainLoop(self.brain_units, self.llm, QueueDepths(lambda: self.queues), self.brain_channel,
                         expire=self.brain_decisions.expire_due)

    @cached_property
    def machine_controls(self) -> MachineControls:
        """/engines, /update, /restart: what the agents hear in their heartbeats' answers."""
        from chalicelib.ops.adapters.machine_control_repository import controls_units
        from chalicelib.ops.services.machine_controls import MachineControls

        def notify(chat_id: int, topic_id: int, text: str) -> None:
            self.telegram_gateway.send(chat_id, text, topic_id=topic_id)

        return MachineControls(controls_units(self.db),
                               notify if self.telegram_enabled else None)

    @cached_property
    def log_tail(self) -> LogTail:
        """/logs: the local log files, or the stack's CloudWatch Logs (named as its queue prefix) in AWS."""
        import os

        from chalicelib.ops.services.log_tail import LogSource, LogTail

        def source() -> LogSource:
            if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
                from chalicelib.kernel.cloudwatch_logs import CloudWatchLogs

                return CloudWatchLogs(self.settings.queue_prefix, region=self.settings.aws_region)
            from chalicelib.contracts.log_files import LocalLogFiles

            return LocalLogFiles(self.settings.home / "logs")

        return LogTail(source)

    # The health monitor (every minute): alerts Telegram once per outage; CloudWatch metrics in AWS.
    @cached_property
    def health_monitor(self) -> HealthMonitor:
        from datetime import UTC, datetime

        from chalicelib.ops.adapters.health_wiring import build_health_monitor

        chat = self.alert_chat_id

        def unclaimed() -> dict[str, tuple[str, float]]:
            """Each machine's oldest task sent to it and not claimed: (task id, seconds since sent)."""
            now, oldest = datetime.now(UTC), dict[str, tuple[str, float]]()
            for task in self.tasks.list_tasks(status="dispatched", limit=500):
                if task.machine_id and task.dispatched_at:
                    age = (now - task.dispatched_at).total_seconds()
                    if age > oldest.get(task.machine_id, ("", -1.0))[1]:
                        oldest[task.machine_id] = (task.id, age)
            return oldest

        def restart(machine_id: str) -> str:  # as /restart asks it; the chat hears when it is back
            return self.machine_controls.request_restart(machine_id, "restart", chat_id=chat)

        return build_health_monitor(self.settings, self.db, lambda: self.queues,
                                    self.machine_registry.list_machines, self.llm_units,
                                    lambda: self.telegram_gateway, chat, unclaimed=unclaimed,
                                    request_restart=restart)

    # Retention, applied by the daily cleanup (docs/operations.md, "Retention").
    @cached_property
    def retention_rows(self) -> RetentionRows:
        from chalicelib.ops.adapters.retention_repository import PostgresRetentionRows

        return PostgresRetentionRows(self.db)

    @property
    def retention_policy(self) -> RetentionPolicy:
        from chalicelib.ops.domain.retention import RetentionPolicy

        s = self.settings
        return RetentionPolicy({"task_events": s.retention_task_events_days,
                                "session_edits": s.retention_session_edits_days,
                                "transcript_chunks": s.retention_transcript_days,
                                "llm_usage": s.retention_llm_usage_days},
                               batch_rows=s.retention_batch_rows, time_budget_s=s.retention_time_s)
