"""Sessions and task orchestration: the task services over one set of ports."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import tasks as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.tasks")


def _task_queues(c: Container) -> kit.TaskQueues:
    s = c.settings
    alarms = kit.DlqAlarms(s.alarm_topic_arn, region=s.aws_region, endpoint_url=s.sqs_endpoint_url) \
        if s.alarm_topic_arn else None
    return kit.SqsTaskQueues(c.queues, alarms)


def _task_budgets(c: Container) -> kit.TaskBudgets:
    s = c.settings
    return kit.TaskBudgets(c.task_deps, c.tasks, kit.BudgetCaps(s.task_cost_cap_usd, s.daily_cost_cap_usd),
                           s.telegram_admin_users)


def _machine_credentials(c: Container) -> kit.MachineCredentialVendor:
    s = c.settings
    role = s.machine_role_arn or (kit.LOCAL_MACHINE_ROLE_ARN if s.sqs_endpoint_url else None)
    if role is None:
        return kit.MachineCredentialVendor(None)
    return kit.MachineCredentialVendor(kit.StsQueueCredentials(role, c.queues, region=s.aws_region,
                                                               endpoint_url=s.sqs_endpoint_url))


class TaskWiring(CoreWiring):
    session_units: kit.SessionUnits = provide(lambda c: kit.session_units(c.db))
    sessions: kit.SessionService = provide(lambda c: kit.SessionService(
        c.session_units, kit.redact,
        on_complete=lambda project, sid: c.memory_lifecycle.after_session(project, sid)))

    # Task orchestration. Its three one-line-swap ports (prompt_enricher, task_event_publisher,
    # outcome_listener) are the glue the Container in bootstrap.py builds.
    task_policy: kit.TaskPolicy = provide(lambda c: kit.TaskPolicy.from_settings(c.settings))
    task_queues: kit.TaskQueues = provide(_task_queues)
    task_deps: kit.TaskDeps = provide(
        lambda c: kit.TaskDeps(kit.tasks_units(c.db), c.task_queues, c.task_policy, c.task_event_publisher))
    tasks: kit.TaskService = provide(lambda c: kit.TaskService(c.task_deps))
    task_budgets: kit.TaskBudgets = provide(_task_budgets)
    task_dispatcher: kit.TaskDispatcher = provide(lambda c: kit.TaskDispatcher(c.task_deps))
    task_runs: kit.TaskRunService = provide(
        lambda c: kit.TaskRunService(c.task_deps, c.prompt_enricher, c.outcome_listener))
    machine_registry: kit.MachineRegistry = provide(lambda c: kit.MachineRegistry(
        c.task_deps, sqs_endpoint_url=c.settings.sqs_endpoint_url, region=c.settings.aws_region))
    machine_credentials: kit.MachineCredentialVendor = provide(_machine_credentials)
    task_sweeper: kit.TaskSweeper = provide(lambda c: kit.TaskSweeper(c.task_deps))
    agent_sessions: kit.AgentSessionService = provide(lambda c: kit.AgentSessionService(c.task_deps))
