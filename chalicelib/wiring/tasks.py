"""Sessions and task orchestration: the task services over one set of ports."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.sessions.services.ports import SessionUnits
    from chalicelib.sessions.services.sessions import SessionService
    from chalicelib.tasks.services.agent_sessions import AgentSessionService
    from chalicelib.tasks.services.dispatch import TaskDispatcher
    from chalicelib.tasks.services.machine_credentials import MachineCredentialVendor
    from chalicelib.tasks.services.machines import MachineRegistry
    from chalicelib.tasks.services.ports import (
        TaskQueues,
    )
    from chalicelib.tasks.services.task_budgets import TaskBudgets
    from chalicelib.tasks.services.task_deps import TaskDeps
    from chalicelib.tasks.services.task_policy import TaskPolicy
    from chalicelib.tasks.services.task_runs import TaskRunService
    from chalicelib.tasks.services.task_sweep import TaskSweeper
    from chalicelib.tasks.services.tasks import TaskService


class TaskWiring(CoreWiring):
    @cached_property
    def session_units(self) -> SessionUnits:
        from chalicelib.sessions.adapters.session_repository import session_units

        return session_units(self.db)

    @cached_property
    def sessions(self) -> SessionService:
        from chalicelib.kernel.redaction import redact
        from chalicelib.sessions.services.sessions import SessionService

        return SessionService(self.session_units, redact,
                              on_complete=lambda project, sid: self.memory_lifecycle.after_session(project,
                                                                                                   sid))

    # Task orchestration. Its three one-line-swap ports (prompt_enricher, task_event_publisher,
    # outcome_listener) are the glue the Container in bootstrap.py builds.
    @cached_property
    def task_policy(self) -> TaskPolicy:
        from chalicelib.tasks.services.task_policy import TaskPolicy

        return TaskPolicy.from_settings(self.settings)

    @cached_property
    def task_queues(self) -> TaskQueues:
        from chalicelib.kernel.dlq_alarms import DlqAlarms
        from chalicelib.tasks.adapters.sqs_task_queues import SqsTaskQueues

        s = self.settings
        alarms = DlqAlarms(s.alarm_topic_arn, region=s.aws_region, endpoint_url=s.sqs_endpoint_url) \
            if s.alarm_topic_arn else None
        return SqsTaskQueues(self.queues, alarms)

    @cached_property
    def task_deps(self) -> TaskDeps:
        from chalicelib.tasks.adapters.postgres_tasks_uow import tasks_units
        from chalicelib.tasks.services.task_deps import TaskDeps

        return TaskDeps(tasks_units(self.db), self.task_queues, self.task_policy,
                        self.task_event_publisher)

    @cached_property
    def tasks(self) -> TaskService:
        from chalicelib.tasks.services.tasks import TaskService

        return TaskService(self.task_deps)

    @cached_property
    def task_budgets(self) -> TaskBudgets:
        from chalicelib.tasks.domain.task_budget import BudgetCaps
        from chalicelib.tasks.services.task_budgets import TaskBudgets

        s = self.settings
        return TaskBudgets(self.task_deps, self.tasks, BudgetCaps(s.task_cost_cap_usd, s.daily_cost_cap_usd),
                           s.telegram_admin_users)

    @cached_property
    def task_dispatcher(self) -> TaskDispatcher:
        from chalicelib.tasks.services.dispatch import TaskDispatcher

        return TaskDispatcher(self.task_deps)

    @cached_property
    def task_runs(self) -> TaskRunService:
        from chalicelib.tasks.services.task_runs import TaskRunService

        return TaskRunService(self.task_deps, self.prompt_enricher, self.outcome_listener)

    @cached_property
    def machine_registry(self) -> MachineRegistry:
        from chalicelib.tasks.services.machines import MachineRegistry

        s = self.settings
        return MachineRegistry(self.task_deps, sqs_endpoint_url=s.sqs_endpoint_url, region=s.aws_region)

    @cached_property
    def machine_credentials(self) -> MachineCredentialVendor:
        from chalicelib.tasks.adapters.sts_queue_credentials import (
            LOCAL_MACHINE_ROLE_ARN,
            StsQueueCredentials,
        )
        from chalicelib.tasks.services.machine_credentials import MachineCredentialVendor

        s = self.settings
        role = s.machine_role_arn or (LOCAL_MACHINE_ROLE_ARN if s.sqs_endpoint_url else None)
        if role is None:
            return MachineCredentialVendor(None)
        return MachineCredentialVendor(StsQueueCredentials(role, self.queues, region=s.aws_region,
                                                           endpoint_url=s.sqs_endpoint_url))

    @cached_property
    def task_sweeper(self) -> TaskSweeper:
        from chalicelib.tasks.services.task_sweep import TaskSweeper

        return TaskSweeper(self.task_deps)

    @cached_property
    def agent_sessions(self) -> AgentSessionService:
        from chalicelib.tasks.services.agent_sessions import AgentSessionService

        return AgentSessionService(self.task_deps)
