"""Prompt-cache prefix of Anthropic Messages requests, as recorded by `FakeAnthropic`.

A request is flattened into its cacheable blocks in the order the API caches them (tools,
then system blocks, then each message's content blocks, each block tagged with its message's
role), with `cache_control` removed and string contents written as one text block, so that two
requests compare block by block. A cache breakpoint is a block that carried `cache_control`.

Request N+1 can read from the cache what request N wrote up to its last breakpoint only if its
own blocks start with exactly those blocks: `broken_prefix` names the first one that differs.
`cache_read_share` is the share of request N+1 (in characters of its canonical JSON, a stand-in
for tokens) that such a cache read covers.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.fake_anthropic import FakeAnthropic
from tests.support.claude_cli import StreamJsonSession


@dataclass(frozen=True)
class Flat:
    blocks: list[str]
    breakpoints: list[int]

    @property
    def last_breakpoint(self) -> int:
        return self.breakpoints[-1] if self.breakpoints else -1

    def size(self, upto: int | None = None) -> int:
        return sum(len(b) for b in self.blocks[: (len(self.blocks) if upto is None else upto)])


def flatten(body: dict[str, Any]) -> Flat:
    blocks: list[str] = []
    marks: list[int] = []

    def add(tag: str, block: Any) -> None:
        if isinstance(block, dict) and block.get("cache_control"):
            marks.append(len(blocks))
        plain = {k: v for k, v in block.items() if k != "cache_control"} if isinstance(block, dict) else block
        blocks.append(tag + json.dumps(plain, sort_keys=True))

    for tool in body.get("tools") or []:
        add("tool:", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        add("system:", block)
    for message in body.get("messages") or []:
        content = message.get("content")
        role = str(message.get("role"))
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content or []:
            add(f"{role}:", block)
    return Flat(blocks, marks)


def broken_prefix(previous: dict[str, Any], current: dict[str, Any]) -> str | None:
    """None when `current` starts with `previous`'s blocks up to its last breakpoint, else the
    first differing block of `previous` (shortened)."""
    before, after = flatten(previous), flatten(current)
    for index in range(before.last_breakpoint + 1):
        if index >= len(after.blocks) or after.blocks[index] != before.blocks[index]:
            return f"block {index}: {before.blocks[index][:300]}"
    return None


def cache_read_share(previous: dict[str, Any], current: dict[str, Any]) -> float:
    """Share of `current` a cache read of `previous`'s prefix covers (0 when the prefix broke)."""
    if broken_prefix(previous, current) is not None:
        return 0.0
    before, after = flatten(previous), flatten(current)
    return before.size(before.last_breakpoint + 1) / max(1, after.size())


def session_requests(claude: Path, cwd: Path, env: dict[str, str], prompts: list[str],
                     fake: FakeAnthropic) -> list[dict[str, Any]]:
    """Run one stream-json session of len(prompts) turns; return its conversation request bodies."""
    with StreamJsonSession(claude, cwd=cwd, env=env) as session:
        for prompt in prompts:
            events = session.send(prompt)
            if events[-1].get("is_error"):
                raise RuntimeError(f"turn failed: {events[-1]}")
        session.close()
    return [r.body for r in fake.conversation_requests()]


def turn_shares(bodies: list[dict[str, Any]]) -> list[float]:
    """cache_read_share of each request after the first, against the one before it."""
    return [cache_read_share(a, b) for a, b in itertools.pairwise(bodies)]
