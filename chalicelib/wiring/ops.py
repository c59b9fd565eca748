"""The brain loop, machine controls, logs and the health monitor (docs/brain.md, docs/ops.md)."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import ops as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.ops")


def _brain_channel(c: Container) -> kit.ProposalChannel:
    chat = c.alert_chat_id
    if chat is None:
        return kit.NoChannel()
    return kit.TelegramProposalChannel(lambda: c.telegram_gateway, chat)


def _brain_decisions(c: Container) -> kit.ProposalDecisions:
    actions = kit.CapabilityActions(lambda: c.tasks, lambda: c.queues,
                                    lambda machine: c.machine_registry.pause(machine))
    return kit.ProposalDecisions(c.brain_units, actions, c.brain_channel)


def _machine_controls(c: Container) -> kit.MachineControls:
    """/engines, /update, /restart: what the agents hear in their heartbeats' answers."""
    def notify(chat_id: int, topic_id: int, text: str) -> None:
        c.telegram_gateway.send(chat_id, text, topic_id=topic_id)

    return kit.MachineControls(kit.controls_units(c.db), notify if c.telegram_enabled else None)


def _log_tail(c: Container) -> kit.LogTail:
    """/logs: the local log files, or the stack's CloudWatch Logs (named as its queue prefix) in AWS."""
    def source() -> kit.LogSource:
        if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
            return kit.CloudWatchLogs(c.settings.queue_prefix, region=c.settings.aws_region)
        return kit.LocalLogFiles(c.settings.home / "logs")

    return kit.LogTail(source)


def _health_monitor(c: Container) -> kit.HealthMonitor:
    """Every minute: alerts Telegram once per outage; CloudWatch metrics in AWS."""
    chat = c.alert_chat_id

    def unclaimed() -> dict[str, tuple[str, float]]:
        """Each machine's oldest task sent to it and not claimed: (task id, seconds since sent)."""
        now, oldest = datetime.now(UTC), dict[str, tuple[str, float]]()
        for task in c.tasks.list_tasks(status="dispatched", limit=500):
            if task.machine_id and task.dispatched_at:
                age = (now - task.dispatched_at).total_seconds()
                if age > oldest.get(task.machine_id, ("", -1.0))[1]:
                    oldest[task.machine_id] = (task.id, age)
        return oldest

    def restart(machine_id: str) -> str:  # as /restart asks it; the chat hears when it is back
        return c.machine_controls.request_restart(machine_id, "restart", chat_id=chat)

    return kit.build_health_monitor(c.settings, c.db, lambda: c.queues, c.machine_registry.list_machines,
                                    c.llm_units, lambda: c.telegram_gateway, chat, unclaimed=unclaimed,
                                    request_restart=restart)


class OpsWiring(CoreWiring):
    @property
    def alert_chat_id(self) -> int | None:
        """Where proposals and health alerts go: the forum group, else the first allowed user."""
        s = self.settings
        if not self.telegram_enabled:
            return None
        return s.telegram_chat_id or (s.telegram_allowed_users[0] if s.telegram_allowed_users else None)

    # The brain loop: observations, proposals with Approve / Reject, the kill switch (docs/brain.md).
    brain_units: kit.BrainUnits = provide(lambda c: kit.brain_units(c.db))
    brain_channel: kit.ProposalChannel = provide(_brain_channel)
    brain_decisions: kit.ProposalDecisions = provide(_brain_decisions)
    brain_loop: kit.BrainLoop = provide(
        lambda c: kit.BrainLoop(c.brain_units, c.llm, kit.QueueDepths(lambda: c.queues), c.brain_channel,
                                expire=c.brain_decisions.expire_due))
    machine_controls: kit.MachineControls = provide(_machine_controls)
    log_tail: kit.LogTail = provide(_log_tail)
    health_monitor: kit.HealthMonitor = provide(_health_monitor)
    # Retention, applied by the daily cleanup (docs/operations.md, "Retention").
    retention_rows: kit.PostgresRetentionRows = provide(lambda c: kit.PostgresRetentionRows(c.db))

    @property
    def retention_policy(self) -> kit.RetentionPolicy:
        s = self.settings
        return kit.RetentionPolicy({"task_events": s.retention_task_events_days,
                                    "session_edits": s.retention_session_edits_days,
                                    "transcript_chunks": s.retention_transcript_days,
                                    "llm_usage": s.retention_llm_usage_days},
                                   batch_rows=s.retention_batch_rows, time_budget_s=s.retention_time_s)
