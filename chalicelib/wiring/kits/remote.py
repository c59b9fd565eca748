"""What encrypted file sync and SSH runs are built from."""

from chalicelib.kernel.redaction import redact
from chalicelib.ssh.adapters.ssh_repositories import ssh_units
from chalicelib.ssh.services.ports import NullRunOutput, RunOutput
from chalicelib.ssh.services.ssh_runs import SshRuns
from chalicelib.ssh.services.ssh_targets import SshTargets
from chalicelib.sync.adapters.sync_file_repository import sync_units
from chalicelib.sync.services.file_sync import FileSync
from chalicelib.telegram.services.chat_stream import ChatStreamPublisher
