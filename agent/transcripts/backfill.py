"""Bring the history already on this machine into Itachi: past sessions and memory files.

Each session goes through the server's own extraction (`POST /api/session/extract-insights`,
the SessionEnd hook's request: the heuristic extractor without an LLM key, the LLM within the
day's budget with one) under its engine's session id, which the server extracts once: a second
run, or a session the hooks already sent, adds nothing. Then the memory files of each project
seen (CLAUDE.md, AGENTS.md and the other rule files `itachi import-rules` reads, and Claude
Code's MEMORY.md without the sections Itachi writes there) go through the import-rules route,
which stores each item once per project (by content hash, its path recorded).
"""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from agent.transcripts.session_file import SessionFile

WORKERS = 4
BATCH = 200  # import-rules items per request
EXTRACT = "/api/session/extract-insights"


@dataclass
class Summary:
    """What a backfill did: sessions read and what they added, and what it skipped and why."""

    sessions: Counter[str] = field(default_factory=Counter)  # read, by engine
    skipped: Counter[str] = field(default_factory=Counter)  # by reason
    memories_added: int = 0
    rules_added: int = 0
    queued: int = 0  # handed to the LLM extractor: their counts come later
    files: int = 0
    file_items_known: int = 0
    failures: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        read = sum(self.sessions.values())
        engines = ", ".join(f"{engine} {n}" for engine, n in sorted(self.sessions.items()))
        skipped = ", ".join(f"{why} {n}" for why, n in sorted(self.skipped.items()))
        out = [f"sessions read: {read}" + (f" ({engines})" if engines else ""),
               f"memories added: {self.memories_added}, rules added: {self.rules_added}"
               + (f", sessions queued for the LLM extractor: {self.queued}" if self.queued else ""),
               f"skipped: {sum(self.skipped.values())}" + (f" ({skipped})" if skipped else ""),
               f"memory files read: {self.files}, items already known: {self.file_items_known}"]
        return [*out, f"failed: {len(self.failures)} (first: {self.failures[0]})"] if self.failures else out


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal, a line per tenth otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "sessions") -> None:
        self.total, self.done, self.label = total, 0, label
        self._stream = stream if stream is not None else sys.stderr
        self._tty = self._stream.isatty()
        self._lock = threading.Lock()
        self._shown = -1

    def step(self) -> None:
        with self._lock:
            self.done += 1
            tenth = self.done * 10 // max(1, self.total)
            if self._tty or tenth != self._shown or self.done == self.total:
                self._shown = tenth
                self._draw()

    def _draw(self) -> None:
        width = 30
        filled = width * self.done // max(1, self.total)
        bar = f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.label}"
        end = "" if self._tty and self.done < self.total else "\n"
        self._stream.write(("\r" if self._tty else "") + bar + end)
        self._stream.flush()


Post = Callable[[str, dict[str, Any]], Any]


class Backfill:
    def __init__(self, post: Post, *, project: str | None = None, since: datetime | None = None,
                 workers: int = WORKERS, progress: TextIO | None = None) -> None:
        self._post, self._project, self._since = post, project, since
        self._workers, self._progress = workers, progress
        self.summary = Summary()
        self._lock = threading.Lock()

    def run(self, sessions: Iterable[SessionFile], memory_dirs: Iterable[str] = ()) -> Summary:
        """Extract every session, then import the memory files of each project seen."""
        chosen = [s for s in sessions if self._wanted(s)]
        progress = Progress(len(chosen), self._progress)
        projects: dict[str, str] = {}  # working directory -> project

        def one(session: SessionFile) -> None:
            try:
                project = self._session(session)
                if project and session.cwd:
                    with self._lock:
                        projects.setdefault(session.cwd, project)
            except Exception as exc:  # one bad session never stops the rest
                with self._lock:
                    self.summary.failures.append(f"{session.path}: {exc}")
            progress.step()

        with ThreadPoolExecutor(max_workers=self._workers) as pool:
            list(pool.map(one, chosen))
        for cwd in dict.fromkeys([*memory_dirs, *projects]):
            self._memory_files(cwd, projects.get(cwd) or self._project_of(cwd))
        return self.summary

    def _wanted(self, session: SessionFile) -> bool:
        if self._since and session.started_at and session.started_at < self._since:
            self.summary.skipped["before --since"] += 1
            return False
        return True

    def _project_of(self, cwd: str) -> str:
        from chalicelib.contracts.project_identity import project_for

        return self._project or project_for(cwd)

    def _session(self, session: SessionFile) -> str | None:
        from hooks.edits import relative_path
        from hooks.session_end import CONVERSATION_CHARS, TRANSCRIPT_BYTES
        from hooks.transcript import conversation_text, read_transcript

        if session.cwd is None and self._project is None:
            self._skip("no working directory (name the project with --project)")
            return None
        transcript = read_transcript(session.path, TRANSCRIPT_BYTES)
        if not transcript.turns:
            self._skip("no conversation")
            return None
        cwd = session.cwd or ""
        project = self._project_of(cwd) if cwd else str(self._project)
        answer = self._post(EXTRACT, {
            "session_id": session.session_id, "project": project,
            "conversation_text": conversation_text(transcript.turns, CONVERSATION_CHARS),
            "files_changed": [relative_path(f, cwd) for f in transcript.files_changed],
            "summary": f"Backfilled {session.engine} session", "duration_ms": transcript.duration_ms})
        with self._lock:
            self.summary.sessions[session.engine] += 1
            if answer.get("replayed"):
                self.summary.skipped["already extracted"] += 1
            elif answer.get("queued"):
                self.summary.queued += 1
            else:
                self.summary.memories_added += int(answer.get("insights_stored") or 0)
                self.summary.rules_added += int(answer.get("rules_stored") or 0)
        return project

    def _skip(self, why: str) -> None:
        with self._lock:
            self.summary.skipped[why] += 1
        return None

    def _memory_files(self, cwd: str, project: str) -> None:
        from agent.transcripts.memory_md_items import memory_md_items
        from agent.transcripts.rule_files import batches, read_items, rule_files

        root = Path(cwd)
        items = [*(read_items(root) if root.is_dir() else []), *memory_md_items(cwd)]
        self.summary.files += (len(rule_files(root)) if root.is_dir() else 0) + \
            len({i.path for i in items if i.tool == "claude-memory"})
        for batch in batches(items, BATCH):  # a file is never split: its request retires what it lacks
            try:
                answer = self._post("/api/memory/import-rules", {
                    "project": project, "items": [i.as_json() for i in batch]})
            except Exception as exc:
                self.summary.failures.append(f"{cwd}: {exc}")
                return
            for item in answer.get("items", []):
                if item.get("status") != "new":
                    self.summary.file_items_known += 1
                elif item.get("category") == "project_rule":
                    self.summary.rules_added += 1
                else:
                    self.summary.memories_added += 1
