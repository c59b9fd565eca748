"""Run a claimed task on an SSH target: a git worktree on the remote host, the engine run there.

A project whose repository is `@<target>:<path>` (in `ITACHI_AGENT_REPOS` or `agent.json`, or
a task's own `repo`) runs on that target, as the seed's orchestrator does: this machine
connects (host key verified against its pin), makes the worktree `<remote root>/<repo>/task-<id>`
on branch `itachi/task-<id>`, uploads the prompt (SFTP, mode 0600, outside the worktree), runs
the first engine of the task's order there with its NDJSON streamed back as progress, commits
the changes on the branch, and reports the files changed. Cancels and the time budget kill the
remote engine's process group. Engine switches on rate limits happen on local worktrees only.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent.engines.engine_run import RunSummary
from agent.ssh.connection import HostKeyRefused, SshConnectError, connect
from agent.ssh.remote_exec import run_remote
from agent.ssh.remote_shell import ps_quote, quote_argv
from agent.ssh.remote_shell_session import RemoteShell
from agent.ssh.targets import LocalTarget, load_targets
from agent.tasks.engine_output import take_line
from agent.tasks.task_finish import NO_RESULT, Finish
from agent.tasks.worktrees import Workspace, WorkspaceError
from chalicelib.contracts.engine_switch import engine_order
from chalicelib.contracts.repo_source import SSH_TARGET

if TYPE_CHECKING:
    from agent.tasks.task_runner import TaskRunner

PROMPT_TOKEN = "__ITACHI_PROMPT__"
_IDENTITY = ["-c", "user.name=Itachi", "-c", "user.email=itachi@localhost"]
STDERR_KEEP = 20_000


@dataclass(frozen=True)
class RemoteRepo:
    target: str
    path: str


def remote_repo(spec: str | None) -> RemoteRepo | None:
    match = SSH_TARGET.match(spec or "")
    return RemoteRepo(match.group("target"), match.group("path")) if match else None


class _Stopped:
    def __init__(self, runner: TaskRunner) -> None:
        self._runner = runner

    def is_set(self) -> bool:
        return self._runner.stopped


def run_remote_task(runner: TaskRunner, repo: RemoteRepo) -> Finish:
    target = load_targets(runner.ctx.config.home, runner.ctx.config.env).get(repo.target)
    if target is None:
        return Finish("failed", error=f"no SSH target {repo.target} on {runner.ctx.machine_id}")
    try:
        transport = connect(target)
    except (HostKeyRefused, SshConnectError) as exc:
        return Finish("failed", error=str(exc))
    try:
        return _run(runner, RemoteShell(transport, target.platform, target.name), target, repo)
    except WorkspaceError as exc:
        return Finish("failed", error=str(exc))
    finally:
        transport.close()


def _run(runner: TaskRunner, shell: RemoteShell, target: LocalTarget, repo: RemoteRepo) -> Finish:
    root = target.remote_root or f"{shell.home()}/.itachi"
    ws = _create(shell, root, repo, runner.task_id)
    runner.event("workspace", f"worktree {ws.location} on branch {ws.branch}",
                 {"worktree": ws.location, "branch": ws.branch, "base": ws.base, "target": target.name})
    name = engine_order(runner.task.get("engine"), runner.ctx.config.engine_priority)[0]
    run, code = _run_engine(runner, shell, root, ws, name)
    status = runner.stop_reason or ("completed" if run.succeeded(code) else "failed")
    message = (f"itachi: {runner.task['description'].splitlines()[0][:60]}\n\n"
               f"Task {runner.task_id} (attempt {runner.attempt}, {name} on {target.name})")
    files = _finish(shell, ws, commit=runner.ctx.config.commit_changes and status not in NO_RESULT,
                    message=message)
    policy = runner.ctx.config.worktree_policy
    if policy == "remove" or (policy == "remove-on-success" and status == "completed"):
        shell.run(quote_argv(["git", "-C", str(ws.repo_root), "worktree", "remove", "--force", str(ws.path)],
                             shell.platform))
    error = run.failure(name, code) if status == "failed" else None
    cost = runner.cost_guard.final_cost(run.cost_usd)
    return Finish(status, run.summary, code, cost, name, error, files, ws)


def _create(shell: RemoteShell, root: str, repo: RemoteRepo, task_id: str) -> Workspace:
    short = task_id.replace("-", "")[:8]
    top = shell.check(["git", "-C", repo.path, "rev-parse", "--show-toplevel"], what="finding the repo")
    base = shell.check(["git", "-C", top, "rev-parse", "HEAD"], what="reading HEAD")
    if not re.fullmatch(r"[0-9a-f]{40,64}", base):
        raise WorkspaceError(f"{repo.path} on {shell.name} has no commit to branch from")
    path = f"{root}/worktrees/{posixpath.basename(top.rstrip('/')) or 'repo'}/task-{short}"
    branch = f"itachi/task-{short}"
    shell.run(quote_argv(["git", "-C", top, "worktree", "remove", "--force", path], shell.platform))
    shell.remove_tree(path)  # a previous attempt starts again from the base
    shell.check(["git", "-C", top, "worktree", "prune"], what="pruning worktrees")
    shell.make_dirs(posixpath.dirname(path))
    shell.check(["git", "-C", top, "worktree", "add", "--quiet", "-B", branch, path, base],
                what="git worktree add")
    return Workspace(Path(top), Path(path), branch, base, host=shell.name)


def _engine_command(argv: list[str], platform: str, prompt_file: str) -> str:
    command = quote_argv(argv, platform)
    if platform == "windows":
        read = f"(Get-Content -Raw -LiteralPath {ps_quote(prompt_file)})"
        return command.replace(ps_quote(PROMPT_TOKEN), read)
    return command.replace(PROMPT_TOKEN, f'"$(cat {shlex.quote(prompt_file)})"')


def _run_engine(runner: TaskRunner, shell: RemoteShell, root: str, ws: Workspace,
                name: str) -> tuple[RunSummary, int | None]:
    summary, engine = RunSummary(name), runner.ctx.engine(name)
    prompt_file = f"{root}/prompts/{runner.task_id}-{runner.attempt}.txt"
    shell.upload(prompt_file, runner.prompt)
    env = {"ITACHI_TASK_ID": runner.task_id, "ITACHI_TASK_ATTEMPT": str(runner.attempt),
           "ITACHI_PROJECT": runner.task["project"], "ITACHI_CLIENT": name}
    pending, stderr = [""], []

    def take(stream: str, text: str) -> None:
        if stream != "stdout":
            stderr.append(text)
            return
        *lines, pending[0] = (pending[0] + text).split("\n")
        for line in lines:
            take_line(runner, engine, line, summary)

    runner.event("engine_started", f"{name} started on {shell.name}", {"engine": name, "target": shell.name})
    runner.cost_guard.engine_started()
    try:
        result = run_remote(shell.transport, _engine_command(engine.task_argv(PROMPT_TOKEN), shell.platform,
                                                             prompt_file),
                            shell.platform, timeout_s=float(runner.task["time_budget_s"]), on_output=take,
                            stop=_Stopped(runner), env=env, cwd=str(ws.path))
    finally:
        shell.remove_tree(prompt_file)
    take("stdout", "\n")
    logs = runner.ctx.config.home / "logs" / "tasks"
    logs.mkdir(parents=True, exist_ok=True)
    (logs / f"{runner.task_id}-{runner.attempt}-{name}.stderr").write_text("".join(stderr)[-STDERR_KEEP:])
    code = result.exit_code
    runner.event("engine_exited", f"{name} exited with code {code}", {"engine": name, "exit_code": code})
    return summary, code


def _finish(shell: RemoteShell, ws: Workspace, *, commit: bool, message: str) -> list[str]:
    path = str(ws.path)
    if commit:
        shell.check(["git", "-C", path, "add", "-A"], what="git add")
        if shell.check(["git", "-C", path, "diff", "--cached", "--name-only"], what="git diff"):
            shell.check(["git", "-C", path, *_IDENTITY, "commit", "--quiet", "--no-verify", "-m", message],
                        what="git commit")
    _, status, _ = shell.run(quote_argv(["git", "-C", path, "status", "--porcelain", "--untracked-files=all"],
                                        shell.platform))
    pending = [line[3:].split(" -> ")[-1] for line in status.splitlines() if line.strip()]
    committed = shell.check(["git", "-C", path, "diff", "--name-only", ws.base, "HEAD"], what="git diff")
    return sorted(set(pending) | set(committed.splitlines()))
