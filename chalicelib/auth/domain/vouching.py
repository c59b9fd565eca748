"""Which keys speak for a person, and which may even claim to carry a person's words.

Trust in stored text is granted by a person or by the path that carries the user's own words,
never by a key: any process on a machine can read that machine's key, and a client key is read
by every hook and MCP client of a session. So only an admin key (the CLI and the console a
person drives) writes as a person; text sent with a machine or client key is stored untrusted,
whatever source it declares, until a person promotes it, and a rule it states is a proposal.

A machine key acts for an agent running tasks on its machine: it may not even claim that text
is the user's or this session's assistant's (refused, so its caller learns to say `agent`).
"""

from __future__ import annotations

from chalicelib.auth.domain.api_keys import KeyKind, Principal

VOUCHED_SOURCES = frozenset({"user", "assistant"})


def speaks_for_person(principal: Principal) -> bool:
    """True for the keys a person drives: admin keys (the CLI, the console)."""
    return principal.kind is KeyKind.ADMIN and not principal.read_only


def may_vouch(principal: Principal) -> bool:
    """Whether the key may claim a person's words (kept untrusted unless it speaks for one)."""
    return principal.kind in (KeyKind.ADMIN, KeyKind.CLIENT) and not principal.read_only


def vouch_refusal(principal: Principal, source: str) -> str | None:
    """Why `principal` may not store text as coming from `source` (None: it may)."""
    if source not in VOUCHED_SOURCES or may_vouch(principal):
        return None
    return (f"the key {principal.name!r} ({principal.kind.value}) may not vouch for {source} text: "
            f"store it as source agent (kept untrusted until a person promotes it)")
