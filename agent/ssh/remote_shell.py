"""Command lines for the remote end: POSIX shells and Windows PowerShell.

Every command is wrapped so that its first line of output names the remote process id
(`__ITACHI_PID__<pid>`), which is how a timeout kills it. On POSIX the login shell prints `$$`
and `exec`s `/bin/sh -c <command>`: sshd made that shell a session leader, so killing its
process group ends the command and its children.

Windows targets run PowerShell 5.1 with `-EncodedCommand` (base64 of UTF-16LE), so neither
cmd.exe nor PowerShell re-parses the script's quotes, `$env:` variables expand where the script
runs, and no PTY is used (a PTY ends Windows OpenSSH sessions). PowerShell 5.1 has no `&&`:
`a && b` becomes `a; if ($?) { b }`.
"""

from __future__ import annotations

import base64
import shlex
from collections.abc import Mapping

PID_MARKER = "__ITACHI_PID__"


def ps_quote(value: str) -> str:
    """A PowerShell single-quoted literal (nothing inside expands)."""
    return "'" + value.replace("'", "''") + "'"


def split_and_chain(command: str) -> list[str]:
    """The parts of `a && b && c`, splitting only outside quotes."""
    parts, current, quote, i = [], [], "", 0
    while i < len(command):
        ch = command[i]
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
            current.append(ch)
        elif command.startswith("&&", i):
            parts.append("".join(current).strip())
            current = []
            i += 1
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def adapt_for_powershell(command: str) -> str:
    """`a && b` as PowerShell 5.1 understands it: run b only if a succeeded."""
    parts = split_and_chain(command)
    if len(parts) <= 1:
        return command
    script = parts[-1]
    for part in reversed(parts[:-1]):
        script = f"{part}; if ($?) {{ {script} }}"
    return script


def posix_command(command: str, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    inner = f"cd {shlex.quote(cwd)} && {command}" if cwd else command
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    runner = f"env {assignments} /bin/sh" if assignments else "/bin/sh"
    return f"echo {PID_MARKER}$$; exec {runner} -c {shlex.quote(inner)}"


def powershell_script(command: str, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    lines = [f'Write-Output "{PID_MARKER}$PID"']
    lines += [f"$env:{k} = {ps_quote(v)}" for k, v in (env or {}).items()]
    if cwd:
        lines.append(f"Set-Location -LiteralPath {ps_quote(cwd)}")
    lines.append(adapt_for_powershell(command))
    lines.append("$itachiOk = $?; $itachiCode = $LASTEXITCODE")
    lines.append("if ($itachiCode) { exit $itachiCode } elseif (-not $itachiOk) { exit 1 } else { exit 0 }")
    return "\n".join(lines)


def windows_command(command: str, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    script = powershell_script(command, env=env, cwd=cwd)
    encoded = base64.b64encode(script.encode("utf-16-le")).decode()
    return f"powershell -NoProfile -NonInteractive -EncodedCommand {encoded}"


def wrap(command: str, platform: str, *, env: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
    """The command line to send for `command` on a target of `platform` (posix | windows)."""
    if platform == "windows":
        return windows_command(command, env=env, cwd=cwd)
    return posix_command(command, env=env, cwd=cwd)


def kill_command(pid: int, platform: str) -> str:
    """End the remote command and everything it started."""
    if platform == "windows":
        return f"taskkill /T /F /PID {int(pid)}"
    pid = int(pid)
    return (f"kill -TERM -- -{pid} 2>/dev/null; sleep 1; kill -KILL -- -{pid} 2>/dev/null; "
            f"kill -KILL {pid} 2>/dev/null; true")


def quote_argv(argv: list[str], platform: str) -> str:
    """One command line running argv as-is on the target's shell."""
    if platform == "windows":
        return "& " + " ".join(ps_quote(a) for a in argv)
    return shlex.join(argv)
