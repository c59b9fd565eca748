"""What the brain loop, machine controls, logs, the health monitor and retention are built from."""

from chalicelib.brain.adapters.brain_actions import CapabilityActions, QueueDepths
from chalicelib.brain.adapters.brain_repositories import brain_units
from chalicelib.brain.adapters.telegram_channel import TelegramProposalChannel
from chalicelib.brain.services.brain_loop import BrainLoop
from chalicelib.brain.services.ports import BrainUnits, NoChannel, ProposalChannel
from chalicelib.brain.services.proposal_decisions import ProposalDecisions
from chalicelib.contracts.log_files import LocalLogFiles
from chalicelib.kernel.cloudwatch_logs import CloudWatchLogs
from chalicelib.ops.adapters.health_wiring import build_health_monitor
from chalicelib.ops.adapters.machine_control_repository import controls_units
from chalicelib.ops.adapters.retention_repository import PostgresRetentionRows
from chalicelib.ops.domain.retention import RetentionPolicy
from chalicelib.ops.services.health_monitor import HealthMonitor
from chalicelib.ops.services.log_tail import LogSource, LogTail
from chalicelib.ops.services.machine_controls import MachineControls
