"""Start a process that outlives the hook (SessionEnd hooks are killed after ~1.5 s)."""

from __future__ import annotations

import os
import subprocess
import sys

_DETACHED_PROCESS = 0x00000008
_CREATE_NEW_PROCESS_GROUP = 0x00000200


def command_for(module: str, *args: str) -> list[str]:
    """The command that runs module: a hook (``hooks.<name>``) through `hooks/launch.py` without
    `site`, as the installed hooks run; anything else (the sync worker needs site-packages for
    its cryptography) with ``-I -m``."""
    package, _, name = module.partition(".")
    if package == "hooks" and name.isidentifier():
        launcher = os.path.join(os.path.dirname(os.path.realpath(__file__)), "launch.py")
        return [sys.executable, "-I", "-S", launcher, name, *args]
    return [sys.executable, "-I", "-m", module, *args]


def spawn_module(module: str, *args: str) -> bool:
    """Run module (see `command_for`) detached from this process; False if it cannot start."""
    return start_module(module, *args) is not None


def start_module(module: str, *args: str) -> subprocess.Popen[bytes] | None:
    """Like `spawn_module`, returning the process so a hook can wait on it within its deadline."""
    windows = os.name == "nt"
    try:
        return subprocess.Popen(
            command_for(module, *args),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            # Its own session (POSIX) or detached console (Windows): the client killing the
            # hook's process group must not take the worker with it.
            start_new_session=not windows,
            creationflags=(_DETACHED_PROCESS | _CREATE_NEW_PROCESS_GROUP) if windows else 0,
        )
    except OSError:
        return None
