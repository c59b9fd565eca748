"""One sync run over one checkout: the lock, the state, the passphrase and the API together.

The CLI (`itachi sync ...`) and the hooks' worker both go through `open_checkout` and
`SyncSession`, so a push from a hook and a pull from the terminal never interleave.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent.sync.checkout import Checkout
from agent.sync.key_file import key_path, read_passphrase
from agent.sync.local_state import SyncState, checkout_lock, load_state, save_state
from agent.sync.sync_pull import PullReport, pull
from agent.sync.sync_push import Api, PushReport, push
from chalicelib.contracts.project_identity import project_for
from chalicelib.contracts.sync_config import load_project_sync
from chalicelib.contracts.sync_paths import repo_root


def open_checkout(home: Path, cwd: str | Path, project: str | None = None) -> Checkout:
    """The checkout holding `cwd`: its repository root (or `cwd` outside git) and its project."""
    root = repo_root(cwd) or Path(cwd).expanduser().absolute()
    return Checkout(home, root, load_project_sync(home, project or project_for(root)))


@dataclass
class SyncSession:
    checkout: Checkout
    state: SyncState
    api: Api
    machine_id: str
    passphrase: bytes

    def pull(self, theirs: frozenset[str] = frozenset()) -> PullReport:
        report = pull(self.checkout, self.state, self.api, self.passphrase, theirs)
        if not report.failed:
            save_state(self.checkout.home, self.state)
        return report

    def push(self, paths: list[str] | None = None, mine: frozenset[str] = frozenset()) -> PushReport:
        try:
            return push(self.checkout, self.state, self.api, self.machine_id, self.passphrase, paths, mine)
        finally:  # what was stored before a failure is recorded all the same
            save_state(self.checkout.home, self.state)


@contextmanager
def sync_session(checkout: Checkout, api: Api, machine_id: str | None = None) -> Iterator[SyncSession]:
    """Hold the checkout's lock for the run; the passphrase is read first (a clear error if absent)."""
    passphrase = read_passphrase(key_path())
    with checkout_lock(checkout.home, checkout.project, checkout.root):
        state = load_state(checkout.home, checkout.project, checkout.root)
        yield SyncSession(checkout, state, api, machine_id or this_machine(checkout.home), passphrase)


def this_machine(home: Path) -> str:
    """The machine id the agent uses here ($ITACHI_MACHINE_ID, agent.json, else the hostname)."""
    from agent.agent_config import AgentConfig

    return AgentConfig.load(home).machine_id
