"""Short commands and file uploads on one connected target, for preparing remote worktrees."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from agent.ssh.remote_exec import run_remote
from agent.ssh.remote_shell import ps_quote, quote_argv
from agent.tasks.worktrees import WorkspaceError

if TYPE_CHECKING:
    import paramiko

SHORT_TIMEOUT_S = 120.0


class RemoteShell:
    def __init__(self, transport: paramiko.Transport, platform: str, name: str) -> None:
        self.transport = transport
        self.platform = platform
        self.name = name

    def run(self, command: str, *, timeout_s: float = SHORT_TIMEOUT_S) -> tuple[int | None, str, str]:
        out: dict[str, list[str]] = {"stdout": [], "stderr": []}
        result = run_remote(self.transport, command, self.platform, timeout_s=timeout_s,
                            on_output=lambda stream, text: out[stream].append(text))
        return result.exit_code, "".join(out["stdout"]), "".join(out["stderr"])

    def check(self, argv: list[str], *, what: str) -> str:
        """Run argv; its stdout, or WorkspaceError naming `what` with the end of stderr."""
        code, stdout, stderr = self.run(quote_argv(argv, self.platform))
        if code != 0:
            raise WorkspaceError(f"{what} on {self.name} failed ({code}): {stderr.strip()[-500:]}")
        return stdout.strip()

    def home(self) -> str:
        command = "Write-Output $env:USERPROFILE" if self.platform == "windows" else "cd ~ && pwd"
        code, stdout, _ = self.run(command)
        if code != 0 or not stdout.strip():
            raise WorkspaceError(f"cannot find the home directory on {self.name}")
        return stdout.strip().splitlines()[-1].replace("\\", "/")

    def make_dirs(self, path: str) -> None:
        if self.platform == "windows":
            command = f"New-Item -ItemType Directory -Force -Path {ps_quote(path)} | Out-Null"
        else:
            command = quote_argv(["mkdir", "-p", path], self.platform)
        if self.run(command)[0] != 0:
            raise WorkspaceError(f"cannot create {path} on {self.name}")

    def remove_tree(self, path: str) -> None:
        if self.platform == "windows":
            self.run(f"Remove-Item -Recurse -Force -LiteralPath {ps_quote(path)} "
                     "-ErrorAction SilentlyContinue")
        else:
            self.run(quote_argv(["rm", "-rf", "--", path], self.platform))

    def upload(self, path: str, text: str) -> None:
        """Write a file on the target (SFTP), creating its folder."""
        self.make_dirs(posixpath.dirname(path))
        sftp = self.transport.open_sftp_client()
        if sftp is None:
            raise WorkspaceError(f"{self.name} offers no SFTP")
        try:
            with sftp.open(path, "w") as handle:
                handle.write(text.encode("utf-8"))
            if self.platform != "windows":
                sftp.chmod(path, 0o600)
        finally:
            sftp.close()
