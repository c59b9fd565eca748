"""The cache-prefix comparison the cache-safety test relies on catches what it must."""

from __future__ import annotations

from typing import Any

from tests.support.cache_prefix import broken_prefix, cache_read_share


def request(system: str, *turns: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": t} for t in turns]
    messages[-1] = {"role": "user", "content": [{"type": "text", "text": turns[-1],
                                                 "cache_control": {"type": "ephemeral"}}]}
    return {"tools": [{"name": "Read"}],
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": messages}


def test_a_request_that_only_appends_to_the_conversation_keeps_the_cached_prefix() -> None:
    first = request("You are Claude.", "first prompt")
    second = request("You are Claude.", "first prompt", "second prompt")
    assert broken_prefix(first, second) is None
    assert 0 < cache_read_share(first, second) < 1


def test_context_injected_before_the_last_breakpoint_breaks_the_prefix_and_is_reported() -> None:
    first = request("You are Claude.", "first prompt")
    second = request("You are Claude.\nItachi memory: something new", "first prompt", "second prompt")
    broken = broken_prefix(first, second)
    assert broken is not None and "You are Claude." in broken
    assert cache_read_share(first, second) == 0.0
