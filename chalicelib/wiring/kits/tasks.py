"""What sessions and task orchestration are built from."""

from chalicelib.kernel.dlq_alarms import DlqAlarms
from chalicelib.kernel.redaction import redact
from chalicelib.sessions.adapters.session_repository import session_units
from chalicelib.sessions.services.ports import SessionUnits
from chalicelib.sessions.services.sessions import SessionService
from chalicelib.tasks.adapters.postgres_tasks_uow import tasks_units
from chalicelib.tasks.adapters.sqs_task_queues import SqsTaskQueues
from chalicelib.tasks.adapters.sts_queue_credentials import LOCAL_MACHINE_ROLE_ARN, StsQueueCredentials
from chalicelib.tasks.domain.task_budget import BudgetCaps
from chalicelib.tasks.services.agent_sessions import AgentSessionService
from chalicelib.tasks.services.dispatch import TaskDispatcher
from chalicelib.tasks.services.machine_credentials import MachineCredentialVendor
from chalicelib.tasks.services.machines import MachineRegistry
from chalicelib.tasks.services.ports import TaskQueues
from chalicelib.tasks.services.task_budgets import TaskBudgets
from chalicelib.tasks.services.task_deps import TaskDeps
from chalicelib.tasks.services.task_policy import TaskPolicy
from chalicelib.tasks.services.task_runs import TaskRunService
from chalicelib.tasks.services.task_sweep import TaskSweeper
from chalicelib.tasks.services.tasks import TaskService
