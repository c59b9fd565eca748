"""The environment of the shells tests start, directly or through another program.

Claude Code's Bash tool and an SSH session start a shell that reads the user's rc files. Where
those run a version manager's rehash (pyenv's `init`), a lock left behind by a shell killed in
the middle of one (a test stopping an engine's process group) makes every later shell wait out
the manager's timeout, a minute each. The tests never need the rehash: they turn the wait off.
"""

from __future__ import annotations

NO_REHASH_WAIT = {"PYENV_REHASH_TIMEOUT": "0"}
