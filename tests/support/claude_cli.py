"""Install the pinned Claude Code CLI and run it offline against `FakeAnthropic`.

What Claude Code 2.1.330 does under this harness (details in docs/testing-claude-cli.md):

- The npm package ships a placeholder `bin/claude.exe`; its postinstall (`install.cjs`)
  links the native binary of the platform's optional dependency over it. We install with
  `--ignore-scripts` and run `install.cjs` ourselves so npm's install-script policy cannot
  leave the placeholder in place. Node 20 is enough for that: the binary is self-contained.
- With `claude_env`, a `-p` run talks only to `POST /v1/messages?beta=true` (streaming),
  one request per model turn. `HEAD /api/hello` is sent as well unless
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC is set; `/compact` sends one extra request.
- `-p` skips onboarding and the workspace trust dialog: hooks in the project's
  `.claude/settings.json` (and in `$CLAUDE_CONFIG_DIR/settings.json`) run with no approval
  and no `.claude.json` seeding. A settings file that fails validation is silently ignored
  in `-p` mode, so a hook that "does not run" is usually a malformed settings file. Hooks get
  `CLAUDE_PROJECT_DIR`; `--include-hook-events` adds `hook_started`/`hook_response` lines.
- Interactive runs are different: without `hasCompletedOnboarding` in
  `$CLAUDE_CONFIG_DIR/.claude.json` the CLI tries to reach api.anthropic.com and exits.
- As root, only `bypassPermissions` / `--dangerously-skip-permissions` need IS_SANDBOX=1;
  `--permission-mode acceptEdits` lets Write/Edit (and plain Bash) run. `auto` mode
  denies tool calls because its safety check is unavailable with an API key.
- A run takes about 0.6 s against the fake.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from tests.support.shells import NO_REHASH_WAIT

CLAUDE_CODE_VERSION = "2.1.330"
PACKAGE = "@anthropic-ai/claude-code"
STREAM_FLAGS = ("--output-format", "stream-json", "--verbose")
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 60


def cache_root() -> Path:
    """Return the test cache folder: $ITACHI_TEST_CACHE or ~/.cache/itachi."""
    return Path(os.environ.get("ITACHI_TEST_CACHE") or Path.home() / ".cache" / "itachi")


def ensure_claude_cli() -> Path:
    """Install the pinned CLI once per machine and return its `claude` executable.

    Idempotent and safe across parallel test processes: the install runs under an
    exclusive file lock and is marked done only after `claude --version` answers.
    """
    install_dir = cache_root() / f"claude-code-{CLAUDE_CODE_VERSION}"
    claude = install_dir / "node_modules" / ".bin" / "claude"
    marker = install_dir / ".itachi-installed"
    if marker.exists() and claude.exists():
        return claude
    install_dir.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(install_dir.parent / f"claude-code-{CLAUDE_CODE_VERSION}.lock"):
        if not (marker.exists() and claude.exists()):
            _install(install_dir, claude)
            marker.write_text(CLAUDE_CODE_VERSION + "\n")
    return claude


def claude_env(base_url: str, config_dir: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Return a fresh environment that points the CLI at `base_url`, offline.

    Built from scratch, so no ANTHROPIC_* or CLAUDE_* variable of the calling shell leaks
    in. CLAUDE_CODE_MAX_RETRIES=0 makes an unexpected API error fail the run at once
    instead of after minutes of backoff; override it through `extra`.
    """
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": os.environ.get("HOME", str(Path.home())),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "dummy",
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        **NO_REHASH_WAIT,  # the Bash tool's shells read the user's rc files
    }
    env.update(extra or {})
    return env


@dataclass(frozen=True)
class ClaudeRun:
    """The outcome of one `claude -p` run in stream-json output mode."""

    returncode: int
    events: list[dict[str, Any]]
    stderr: str

    @property
    def results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "result"]


def run_print(
    claude: Path,
    prompt: str,
    *,
    cwd: Path,
    env: dict[str, str],
    args: Sequence[str] = (),
    timeout: float = RUN_TIMEOUT_S,
    give_up_when: Callable[[], bool] | None = None,
) -> ClaudeRun:
    """Run `claude -p PROMPT` with stream-json output; raise TimeoutExpired past `timeout`.

    `give_up_when`, asked every 0.1 s while the CLI runs, ends the wait early as the timeout
    would: a test of the timeout waits for the state it needs, not for a fixed time. On a
    timeout (or an interrupt) the CLI and every hook it started are killed.
    """
    process = subprocess.Popen(
        [str(claude), "-p", prompt, *STREAM_FLAGS, *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = _communicate(process, timeout, give_up_when)
    except BaseException:
        _kill_tree(process)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
        raise
    return ClaudeRun(process.returncode, _parse_events(stdout), stderr)


def _communicate(process: subprocess.Popen[str], timeout: float,
                 give_up_when: Callable[[], bool] | None) -> tuple[str, str]:
    if give_up_when is None:
        return process.communicate(timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        try:  # communicate may be called again after its timeout: no output is lost
            return process.communicate(timeout=min(0.1, max(deadline - time.monotonic(), 0.001)))
        except subprocess.TimeoutExpired:
            if give_up_when() or time.monotonic() >= deadline:
                raise


class StreamJsonSession:
    """Drive `claude -p --input-format stream-json` turn by turn, never waiting past `timeout`."""

    def __init__(
        self,
        claude: Path,
        *,
        cwd: Path,
        env: dict[str, str],
        args: Sequence[str] = (),
        timeout: float = RUN_TIMEOUT_S,
    ) -> None:
        self._timeout = timeout
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 closed in __exit__
        self._process = subprocess.Popen(
            [str(claude), "-p", "--input-format", "stream-json", *STREAM_FLAGS, *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=_pump, args=(self._process.stdout, self._lines), daemon=True)
        self._reader.start()

    def send(self, text: str) -> list[dict[str, Any]]:
        """Send one user turn; return its events, the last one being its `result`."""
        stdin = self._process.stdin
        assert stdin is not None
        message = {"type": "user", "message": {"role": "user", "content": text}}
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        events: list[dict[str, Any]] = []
        while not events or events[-1].get("type") != "result":
            try:
                line = self._lines.get(timeout=self._timeout)
            except queue.Empty:
                _kill_tree(self._process)
                raise TimeoutError(f"no result in {self._timeout}s: {self._tell(events)}") from None
            if line is None:
                raise RuntimeError(f"claude exited before its result: {self._tell(events)}")
            events.extend(_parse_events(line))
        return events

    def close(self) -> int:
        """Close stdin, let the CLI end its session, and return its exit code."""
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            return self._process.wait(timeout=self._timeout)
        except subprocess.TimeoutExpired:
            _kill_tree(self._process)
            raise

    def _tell(self, events: list[dict[str, Any]]) -> str:
        self._stderr.seek(0)
        return f"events={events} stderr={self._stderr.read()[-2000:]!r}"

    def __enter__(self) -> StreamJsonSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._process.poll() is None:
            _kill_tree(self._process)
        self._reader.join(timeout=5)
        for pipe in (self._process.stdin, self._process.stdout, self._stderr):
            if pipe is not None:
                with suppress(OSError):  # stdin of a killed CLI may not flush
                    pipe.close()


def _install(install_dir: Path, claude: Path) -> None:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        raise RuntimeError("the Claude Code CLI tests need node and npm on PATH")
    _run(
        [
            npm,
            "install",
            "--prefix",
            str(install_dir),
            "--no-audit",
            "--no-fund",
            "--save-exact",
            "--include=optional",
            "--ignore-scripts",
            f"{PACKAGE}@{CLAUDE_CODE_VERSION}",
        ],
        cwd=install_dir,
    )
    _run([node, "install.cjs"], cwd=install_dir / "node_modules" / PACKAGE)
    version = _run([str(claude), "--version"], cwd=install_dir)
    if not version.startswith(CLAUDE_CODE_VERSION):
        raise RuntimeError(f"{claude} reports version {version!r}, not {CLAUDE_CODE_VERSION}")


def _run(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed ({done.returncode}): {done.stderr[-2000:]}")
    return done.stdout.strip()


@contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _kill_tree(process: subprocess.Popen[str]) -> None:
    """Kill the CLI and its descendants: it starts each hook in a session of its own."""
    with suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGSTOP)  # no new hook while we look for them
    for pid in [process.pid, *_descendants(process.pid)]:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.wait(timeout=5)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
        children.setdefault(parent, []).append(int(stat.parent.name))
    found: list[int] = []
    todo = [root]
    while todo:
        kids = children.get(todo.pop(), [])
        found.extend(kids)
        todo.extend(kids)
    return found


def _pump(stream: IO[str] | None, lines: queue.Queue[str | None]) -> None:
    assert stream is not None
    for line in stream:
        lines.put(line)
    lines.put(None)


def _parse_events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]
