"""What `itachi sync` prints: reports, conflicts with both ways out, status and listings."""

from __future__ import annotations

from typing import Any

from agent.sync.checkout import Checkout
from agent.sync.local_state import SyncState, pending_paths, plaintext_hash
from agent.sync.sync_pull import PullReport
from agent.sync.sync_push import PushReport


def _conflict_lines(conflicts: list[dict[str, Any]]) -> list[str]:
    lines = []
    for c in conflicts:
        path = c["path"]
        theirs = c.get("current_version") or c.get("version")
        lines.append(f"  conflict: {path} changed here and on {c.get('machine_id') or 'another machine'} "
                     f"(version {theirs}); nothing was overwritten.")
        lines.append(f"    keep theirs: itachi sync pull --theirs {path}")
        lines.append(f"    keep yours:  itachi sync push --mine {path}")
    return lines


def render_push(project: str, report: PushReport) -> str:
    lines = [f"{project}: pushed {len(report.pushed)}, unchanged {report.unchanged}"
             + (f", {len(report.conflicts)} conflict(s)" if report.conflicts else "")]
    lines += [f"  pushed: {p}" for p in report.pushed]
    return "\n".join(lines + _conflict_lines(report.conflicts))


def render_pull(project: str, report: PullReport) -> str:
    if report.failed:
        wrong_key = all("authentication failed" in f for f in report.failed)
        head = (f"{project}: {len(report.failed)} file(s) could not be decrypted; nothing was written.")
        hint = ("  Is ~/.itachi-key the same passphrase as on the machine that pushed them? "
                "(or the ciphertext was altered on the server)" if wrong_key else "")
        return "\n".join([head, *[f"  {f}" for f in report.failed], *([hint] if hint else [])])
    lines = [f"{project}: wrote {len(report.written)}, up to date {report.unchanged}"
             + (f", {len(report.conflicts)} conflict(s)" if report.conflicts else "")]
    lines += [f"  wrote: {p}" for p in report.written]
    lines += [f"  no longer synced (forgotten elsewhere, local copy kept): {p}" for p in report.forgotten]
    lines += [f"  skipped: {p}" for p in report.skipped]
    return "\n".join(lines + _conflict_lines(report.conflicts))


def render_status(checkout: Checkout, state: SyncState, remote: list[dict[str, Any]]) -> str:
    remote_by_path = {f["path"]: f for f in remote if not f["deleted"]}
    pending = set(pending_paths(checkout.home, checkout.project, checkout.root))
    rows = []
    for path in sorted(set(checkout.scan()) | set(state.files) | set(remote_by_path)):
        known, theirs = state.files.get(path), remote_by_path.get(path)
        local = checkout.read_synced(path)
        if path in state.conflicts:
            word = f"conflict (theirs: version {state.conflicts[path].get('version')})"
        elif local is None:
            word = "remote only (pull)" if theirs else "missing here"
        elif known is None:
            word = "new here (push)" if not theirs else "here and remote, never synced (pull)"
        elif plaintext_hash(local) != known.hash:
            word = "changed here (push)" + (" [spooled]" if path in pending else "")
        elif theirs and int(theirs["version"]) > known.version:
            word = f"newer remote version {theirs['version']} (pull)"
        else:
            word = f"synced (version {known.version})"
        rows.append(f"  {path}: {word}")
    head = f"{checkout.project} at {checkout.root}" + ("" if checkout.config.enabled else " (sync disabled)")
    return "\n".join([head, *(rows or ["  nothing to sync"])])


def render_files(files: list[dict[str, Any]], project: str | None) -> str:
    if not files:
        return "The server holds no synced files" + (f" for {project}." if project else ".")
    lines = []
    for f in files:
        where = "" if project else f"{f['project']}: "
        what = "forgotten" if f["deleted"] else f"v{f['version']} {f['size']} B"
        lines.append(f"{where}{f['path']}  {what}  from {f['machine_id']}  {f['updated_at']}")
    return "\n".join(lines)
