"""The console's static files: its own CSS and script, and the pinned npm libraries.

`package.json` / `package-lock.json` here pin htmx and Chart.js; `make` installs them with
`npm ci` into `node_modules/` (not in git). Only the files named in `FILES` are served, and
`make package` copies exactly those into the Lambda zip.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

HERE = Path(__file__).parent
FILES = {
    "htmx.min.js": ("node_modules/htmx.org/dist/htmx.min.js", "text/javascript"),
    "chart.umd.min.js": ("node_modules/chart.js/dist/chart.umd.min.js", "text/javascript"),
    "console.js": ("console.js", "text/javascript"),
    "console.css": ("console.css", "text/css"),
}


class MissingAsset(RuntimeError):
    """A library file is not installed (run `make` or `npm ci` in chalicelib/console/assets)."""


@cache
def asset(name: str) -> tuple[str, str] | None:
    """(text, content type) of a served file; None for a name that is not served."""
    entry = FILES.get(name)
    if entry is None:
        return None
    path = HERE / entry[0]
    if not path.is_file():
        raise MissingAsset(f"{path} is missing: run `npm ci --prefix {HERE}`")
    return path.read_text(encoding="utf-8"), entry[1]
