"""Start a hook without `site`: ``python -I -S <...>/hooks/launch.py <hook> [args...]``.

This is the command `itachi install-hooks` writes. Most of a bare interpreter's start-up is the
`site` module: it scans site-packages, runs every ``.pth`` file and, for an editable install,
imports that install's path finder (about 65 ms of a 115 ms ``python -I -c pass`` on a busy
box, against 30 ms with ``-S``). The hooks need none of it: they import the standard library
and `chalicelib.contracts` only. So this file, itself stdlib-only, puts the directory that
holds the `hooks` package (the checkout of an editable install, or site-packages of a wheel
install) at the end of ``sys.path``, where the standard library still wins, and calls the
hook's ``main()``. ``-I`` (which implies ``-P`` on 3.11) keeps the cwd, this file's own folder
and ``PYTHON*`` variables off the path, as before.

A hook that cannot be imported (a broken or half-upgraded install) fails open like the hooks
themselves: one line on stderr, exit 0. ``launch.py --check`` is the installer's probe: it
imports the hooks' runtime and exits 1 if that fails.
"""

from __future__ import annotations

import os
import sys

CHECK = "--check"


def hooks_root() -> str:
    """The directory that contains the `hooks` package this file belongs to."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def main(argv: list[str]) -> int:
    root = hooks_root()
    if root not in sys.path:
        sys.path.append(root)
    name = argv[1] if len(argv) > 1 else ""
    if name == CHECK:
        import hooks.runtime  # noqa: F401  (raises, and exits 1, if the hooks cannot run here)

        return 0
    try:
        if not name.isidentifier():
            raise ImportError(f"not a hook name: {name!r}")
        hook = __import__(f"hooks.{name}", fromlist=["main"])
        entry = hook.main
    except (ImportError, AttributeError) as exc:  # fail open: the session goes on without us
        sys.stderr.write(f"itachi: cannot start hook {name!r}: {exc}\n")
        return 0
    sys.argv = [argv[0], *argv[2:]]  # what the hook reads, as under `python -m hooks.<name>`
    entry()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
