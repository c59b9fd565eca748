"""`itachi backfill [--from claude|codex|gemini] [PATH] [--since DATE]`: past sessions into Itachi.

Reads the session transcripts other engines left on this machine (Claude Code's
`~/.claude/projects/*/*.jsonl`, Codex's `~/.codex/sessions/**/rollout-*.jsonl`, Gemini CLI's
`~/.gemini/tmp/*/chats/*.json`; PATH instead of the engine's folder) and the memory files of
the projects they ran in, and sends them through the server's extraction (`agent/transcripts/backfill.py`).
Running it again adds nothing. A progress bar goes to stderr, a summary to stdout.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ENGINES = ("claude", "codex", "gemini")


def add_backfill_parser(sub: Any) -> None:
    p = sub.add_parser("backfill", help="extract memories and rules from past sessions and memory files")
    p.add_argument("path", nargs="?", help="a transcript file or folder (default: each engine's own folder)")
    p.add_argument("--from", dest="engine", choices=ENGINES, help="one engine's sessions (default: all)")
    p.add_argument("--since", help="only sessions started on or after this date (YYYY-MM-DD)")
    p.add_argument("--project", help="file every session under this project (default: its directory's)")
    p.set_defaults(func=cmd_backfill)


def cmd_backfill(args: argparse.Namespace) -> int:
    from agent.transcripts.backfill import Backfill
    from chalicelib.contracts.api_transport import ApiClient

    try:
        since = parse_since(args.since) if args.since else None
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    engines = [args.engine] if args.engine else ([engine_of(Path(args.path))] if args.path else list(ENGINES))
    sessions = [s for engine in engines for s in sessions_of(engine, Path(args.path) if args.path else None)]
    client = ApiClient.configured(timeout_s=180)
    summary = Backfill(client.post, project=args.project, since=since).run(sessions)
    print("\n".join(summary.lines()))
    return 1 if summary.failures else 0


def parse_since(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--since: not a date (YYYY-MM-DD): {text!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def engine_of(path: Path) -> str:
    """The engine whose transcripts `path` holds, by its name and place."""
    text = path.expanduser().absolute().as_posix()
    if path.suffix == ".json" or "/.gemini/" in text:
        return "gemini"
    return "codex" if "/.codex/" in text or path.name.startswith("rollout-") else "claude"


def sessions_of(engine: str, path: Path | None) -> list[Any]:
    from agent.transcripts import claude_transcripts, codex_transcripts, gemini_transcripts

    reader = {"claude": claude_transcripts, "codex": codex_transcripts, "gemini": gemini_transcripts}[engine]
    root = path.expanduser() if path is not None else reader.default_root()
    if not root.exists():
        return []
    if reader is gemini_transcripts:
        return [gemini_transcripts.read(f, [str(Path.cwd())]) for f in gemini_transcripts.find(root)]
    return [reader.read(f) for f in reader.find(root)]  # type: ignore[attr-defined]
