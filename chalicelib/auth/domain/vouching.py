"""Which keys may vouch for a memory's origin.

A memory stored as the user's words or this session's assistant is trusted: it is injected
into prompts and may become a rule. Storing one through the API is a claim about where the text
came from, so only keys that speak for the person may make it: admin keys and client keys (a
person's own coding sessions, their hooks and MCP clients). A machine key acts for an agent
running tasks on its machine; what it stores is an agent's finding, kept untrusted until a
person promotes it. Other sources (tool, web, agent, import...) need no vouching.
"""

from __future__ import annotations

from chalicelib.auth.domain.api_keys import KeyKind, Principal

VOUCHED_SOURCES = frozenset({"user", "assistant"})


def may_vouch(principal: Principal) -> bool:
    return principal.kind in (KeyKind.ADMIN, KeyKind.CLIENT) and not principal.read_only


def vouch_refusal(principal: Principal, source: str) -> str | None:
    """Why `principal` may not store text as coming from `source` (None: it may)."""
    if source not in VOUCHED_SOURCES or may_vouch(principal):
        return None
    return (f"the key {principal.name!r} ({principal.kind.value}) may not vouch for {source} text: "
            f"store it as source agent (kept untrusted until a person promotes it)")
