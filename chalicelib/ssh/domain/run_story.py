"""What the chat reads about a run: its header, its confirmation question, and how it ended."""

from __future__ import annotations

from chalicelib.ssh.domain import run_rules as rules
from chalicelib.ssh.domain.ssh_model import SshRun

CONFIRM_PREFIX = "sx"


def header(run: SshRun) -> str:
    return f"🖥 {run.target} ({run.machine_id} connects)\n$ {run.command}"


def confirmation(run: SshRun) -> str:
    return (f"{run.target}: `{run.command}` is not on the target's command allow-list.\n"
            "Run it anyway?")


def ending(run: SshRun, duration_s: float | None = None) -> str:
    took = f" after {duration_s:.1f}s" if duration_s is not None else ""
    if run.status == rules.SUCCEEDED:
        return f"✅ exit code 0{took}"
    if run.status == rules.FAILED:
        code = f"exit code {run.exit_code}" if run.exit_code is not None else "failed"
        return f"❌ {code}{took}" + (f": {run.error}" if run.error else "")
    if run.status == rules.TIMED_OUT:
        return f"⏱ timed out after {run.timeout_s}s; the remote command was killed"
    if run.status == rules.REFUSED:
        return f"🔒 refused: {run.error or 'the host key could not be verified'}"
    return f"🛑 {run.status.replace('_', ' ')}"


def confirm_data(run_id: str, yes: bool) -> str:
    """Callback data of the confirmation buttons (under Telegram's 64 bytes)."""
    return f"{CONFIRM_PREFIX}:{run_id}:{'run' if yes else 'no'}"


def parse_confirm_data(data: str) -> tuple[str, bool] | None:
    parts = data.split(":")
    if len(parts) != 3 or parts[0] != CONFIRM_PREFIX or parts[2] not in {"run", "no"} or not parts[1]:
        return None
    return parts[1], parts[2] == "run"
