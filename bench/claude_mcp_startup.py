"""What registering `itachi mcp` adds to a `claude -p` run: the CLI starts the server and waits
for its handshake before the first model request.

Runs the real Claude Code CLI (the tests' pinned install) against the scripted fake model API,
`-n` times in a repository whose `.mcp.json` holds the Itachi server and `-n` times in one
without it, alternating, and prints p50 / max of the wall time of each.

    python -m bench.claude_mcp_startup -n 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent.installers.install_mcp import install_mcp
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import claude_env, ensure_claude_cli, run_print


def repo(root: Path, name: str, with_mcp: bool) -> Path:
    path = root / name
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    if with_mcp:
        install_mcp("project", "claude", path, sys.executable)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args()
    claude = ensure_claude_cli()
    root = Path(tempfile.mkdtemp(prefix="itachi-mcp-startup-"))
    repos = {"with itachi mcp": repo(root, "with", True), "without": repo(root, "without", False)}
    times: dict[str, list[float]] = {label: [] for label in repos}
    for i in range(args.n):
        for label, path in repos.items():
            with FakeAnthropic([Reply.text("hi")]) as fake:
                env = claude_env(fake.base_url, root / f"config-{label[:4]}-{i}",
                                 {"ITACHI_HOME": str(root / "home"), "ITACHI_API_URL": "http://127.0.0.1:9"})
                started = time.perf_counter()
                run = run_print(claude, "hello", cwd=path, env=env, timeout=120)
                times[label].append(time.perf_counter() - started)
            assert run.returncode == 0, run.stderr
    for label, values in times.items():
        print(f"claude -p, repo {label}: n={len(values)} p50 {statistics.median(values):.2f} s, "
              f"max {max(values):.2f} s")


if __name__ == "__main__":
    main()
