"""Text that reads as an order to the model: to ignore earlier instructions, fetch something or run something.

Stored text reaches a model as context, and a model may act on what it reads. Text that no
person kept and that tells the model to drop its instructions, to fetch from the network or to
execute a command (`curl ... | sh`, "download and run", "ignore previous instructions") is never
injected (`provenance.trusted_on_write`). Project knowledge that merely names a command ("run the
tests with make test", "the docs are at https://...") is not a directive.
"""

from __future__ import annotations

import re

IGNORES = "asks to ignore earlier instructions"
FETCHES = "asks to fetch something"
RUNS = "asks to run something"

_URL = r"(?:https?|ftp)://\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b"
_EARLIER = r"(?:previous|prior|earlier|above|preceding|former|original|system|existing)"
_GUIDANCE = (r"(?:instructions?|prompts?|rules?|messages?|context|directions?|directives?|guidelines?|"
             r"guidance|guardrails?|orders?)")
_DROP = r"\b(?:ignore|disregard|forget|override|bypass)\s+"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (IGNORES, re.compile(
        rf"{_DROP}(?:(?:all|any|every|the|your|my|these|those|of)\s+)*{_EARLIER}\s+(?:\w+\s+)?{_GUIDANCE}"
        rf"|{_DROP}(?:all|any|your)\s+(?:\w+\s+)?{_GUIDANCE}"
        rf"|{_DROP}(?:everything|all|anything)\s+(?:above|before|else|prior|previously|so\s+far|"
        rf"you\s+(?:were|have\s+been)\s+told)"
        rf"|\bnew\s+(?:system\s+)?instructions\s*:|\byou\s+are\s+now\s+(?:in\s+)?(?:\w+\s+)?mode\b",
        re.IGNORECASE)),
    (FETCHES, re.compile(
        rf"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|aria2c)\b[^\n]{{0,200}}?(?:{_URL})"
        rf"|\b(?:fetch|download|retrieve|visit|browse\s+to|go\s+to|navigate\s+to)\s+(?:\S+\s+){{0,3}}?(?:{_URL})"
        rf"|\b(?:pip3?|npm|pnpm|yarn|gem)\s+(?:install|add)\s+(?:\S+\s+){{0,3}}?(?:git\+|{_URL})",
        re.IGNORECASE)),
    (RUNS, re.compile(
        r"\|\s*(?:sudo\s+)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|perl|ruby|node|iex|invoke-expression)\b"
        r"|\bpowershell(?:\.exe)?\b[^\n]{0,200}?\s-(?:enc|encodedcommand)\b"
        r"|\b(?:run|execute|exec)\s+(?:this|that|these|the\s+following|the\s+attached|the\s+below)\s+"
        r"(?:shell\s+)?(?:commands?|scripts?|code|payloads?|binary|binaries|file)\b"
        r"|\b(?:download|fetch)\w*\s+(?:\S+\s+){0,6}?(?:and|then)\s+(?:run|execute|install)\b"
        r"|\brm\s+-[rf]{1,2}\s+(?:~|/)(?:\s|$|\*)",
        re.IGNORECASE)),
)


def directive(text: str) -> str | None:
    """What the text asks the model to do (`IGNORES`, `FETCHES` or `RUNS`), None if it asks none of it."""
    for kind, pattern in _PATTERNS:
        if pattern.search(text):
            return kind
    return None
