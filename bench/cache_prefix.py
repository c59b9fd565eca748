"""How much of each model request could be a prompt-cache read, with and without Itachi.

Runs the real Claude Code CLI (the tests' pinned install) for one 5-turn stream-json session
against the scripted fake model API twice: in a repository with Itachi's hooks installed (the
API is the app on a local server over its own embedded Postgres, holding 5 decisions the
prompts ask about and 5 newer ones that fill the session briefing, so every turn injects) and in
the same kind of repository without them.
For each turn after the first it prints whether the request kept the previous request's
prefix up to its last `cache_control` breakpoint, and the share of the request (characters of
its canonical JSON, a stand-in for tokens) that a cache read of that prefix covers.

    python -m bench.cache_prefix
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from chalicelib.bootstrap import set_container
from infra.local.api_server import ApiServer
from tests.e2e.test_cache_safe_injection import FILLERS, MEMORIES, PROMPTS
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.cache_prefix import broken_prefix, flatten, session_requests, turn_shares
from tests.support.claude_cli import claude_env, ensure_claude_cli
from tests.support.local_stack import TestPostgres, make_container, settings_for_test

PROJECT = "github.com/itachi-bench/cache-prefix"
ROOT = Path(__file__).resolve().parents[1]


def repo(root: Path, name: str, hooks: bool) -> Path:
    path = root / name
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True, timeout=30)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", f"https://{PROJECT}.git"],
                   check=True, timeout=30)
    if hooks:
        itachi = Path(sys.executable).parent / "itachi"
        subprocess.run([str(itachi), "install-hooks", "--scope", "project", "--no-mcp"], cwd=path,
                       check=True, capture_output=True, timeout=60)
    return path


def store(url: str, key: str, content: str) -> None:  # as the test stores them
    body = {"project": PROJECT, "category": "decision", "content": content, "source": "user"}
    request = urllib.request.Request(f"{url}/api/memory", data=json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {key}",
                                              "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=60).close()


def report(label: str, bodies: list[dict]) -> None:
    shares = turn_shares(bodies)
    print(f"{label}: {len(bodies)} requests")
    for turn, ((before, after), share) in enumerate(zip(itertools.pairwise(bodies), shares, strict=True), 2):
        kept = broken_prefix(before, after) is None
        print(f"  turn {turn}: prefix kept {kept}, request {flatten(after).size()} chars, "
              f"cache read share {share:.3f}")
    print(f"  mean cache read share, turns 2-{len(bodies)}: {sum(shares) / len(shares):.3f}")
    # The last request carries the whole session: what the briefing and each prompt injected.
    contexts = (json.dumps(bodies[-1]) if bodies else "").split("hook additional context: ")[1:]
    stored = [*MEMORIES, *(filler_text(t) for t in FILLERS)]
    briefing = {m for m in stored for c in contexts if "Session Briefing" in c[:80] and m[:60] in c}
    prompted = [m for c in contexts if c.startswith("=== Itachi Memory Context") for m in stored
                if m[:60] in c[:6000]]
    print(f"  briefing: {len(briefing)} stored memories; prompt hook: {len(prompted)} memory lines, "
          f"{len(set(prompted))} distinct, {len(set(prompted) & briefing)} already in the briefing")


def filler_text(topic: str) -> str:
    return f"We decided to keep {topic} as it is for this release."


def main() -> None:
    claude = ensure_claude_cli()
    root = Path(tempfile.mkdtemp(prefix="itachi-cache-prefix-"))
    pg = TestPostgres(root / "pg")
    container = make_container(settings_for_test(root / "server-home", pg.new_database(), None),
                               with_queues=False)
    set_container(container)
    container.warm_up()
    from app import app as chalice_app

    server = ApiServer(chalice_app, port=0, max_body_bytes=container.settings.max_body_bytes)
    server.start()
    key = container.settings.api_keys[0]
    try:
        for content in [*MEMORIES, *(filler_text(t) for t in FILLERS)]:
            store(server.url, key, content)
        for label, hooks in (("with Itachi", True), ("without Itachi", False)):
            path = repo(root, label.replace(" ", "-"), hooks)
            with FakeAnthropic([Reply.text(f"Answer {n}.") for n in range(1, 6)]) as fake:
                env = claude_env(fake.base_url, root / f"config-{hooks}", {
                    "ITACHI_HOME": str(root / "home"), "ITACHI_API_URL": server.url,
                    "ITACHI_API_KEY": key, "PYTHONPATH": str(ROOT)})
                report(label, session_requests(claude, path, env, PROMPTS, fake))
    finally:
        server.stop()
        set_container(None)
        container.close()
        pg.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
