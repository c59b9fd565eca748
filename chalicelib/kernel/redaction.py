"""Secret redaction and private spans: applied before anything is stored, embedded or logged.

`redact` replaces each secret with a marker naming its kind (`[REDACTED:github_token]`) and
keeps the words around it, so a memory stays readable. `drop_private` removes
`<private>...</private>` spans entirely (an unclosed tag hides everything after it).
Patterns are deliberately greedy: a false positive costs a word, a miss leaks a credential.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_PRIVATE_CLOSE = re.compile(r"</private>", re.IGNORECASE)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY((?: BLOCK)?)-----.*?(?:-----END \1PRIVATE KEY\2-----|\Z)",
    re.DOTALL,
)

# (kind, pattern): the whole match is replaced. A token may sit inside a URL path
# (`/bot<telegram token>/getMe`) or end in `-`/`_`, so the edges are look-arounds, not `\b`.
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("api_key", re.compile(r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{20,}")),
    # A token cut short (a truncated log line, a partial paste) is still caught from 20 characters on.
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    # A key id is often glued to a name (`AKIA..._prod`, `prod_AKIA...`): `_` is no edge for `\b`.
    ("aws_access_key", re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}"
                                  r"(?![A-Z0-9])")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google_api_key", re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35,}")),
    ("google_oauth", re.compile(r"(?<![A-Za-z0-9_-])(?:GOCSPX-[A-Za-z0-9_-]{20,}"
                                r"|ya29\.[A-Za-z0-9_.-]{20,})")),
    ("stripe_key", re.compile(r"(?<![A-Za-z0-9_])(?:[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"
                              r"|whsec_[A-Za-z0-9]{24,})")),
    # `<bot id>:<35 characters>` (Telegram's documented `123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11`),
    # whatever the second part starts with; one that is all hex and dashes is a hash or a UUID.
    ("telegram_token", re.compile(r"(?<![0-9])\d{6,12}:(?![0-9a-fA-F-]+(?![A-Za-z0-9_-]))"
                                  r"[A-Za-z0-9_-]{30,}")),
    ("itachi_key", re.compile(r"(?<![A-Za-z0-9_])itk_[A-Za-z0-9_-]{20,}")),  # this API's own keys
)
# Keep the scheme/prefix (group 1), replace the credential (group 2).
_PREFIXED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bearer_token", re.compile(r"(\b(?:Bearer|Token)\s+)([A-Za-z0-9._~+/=-]{16,})", re.IGNORECASE)),
    ("url_password", re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:)([^\s@/]+)(?=@)")),
)
# `Basic <base64 of user:password>`: replaced only when it decodes to that, so prose such as
# "Basic Information" stays.
_BASIC = re.compile(r"(\b(?i:basic)\s+)([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])")
# `NAME=value` / `name: "value"` where a part of NAME says it is a secret.
_SECRET_WORDS = ("secret", "token", "password", "passwd", "pwd", "pass", "key", "apikey",
                 "credential", "credentials", "privatekey", "salt")
_ASSIGNMENT = re.compile(
    r"""(?P<name>\b[A-Za-z_][A-Za-z0-9_.-]*)(?P<sep>["']?\s*(?::=|=|:)\s*)(?P<quote>["']?)"""
    r"""(?P<value>[^\s"',;]{4,})"""
)
# A value already replaced by a marker (perhaps followed by the rest of a URL) is left as it is.
_HARMLESS_VALUE = re.compile(r"^(?:true|false|null|none|yes|no|\d{1,11}|\[REDACTED[^\]]*\]?(?:[&#?/].*)?)$",
                             re.IGNORECASE)


def _marker(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _secret_name(name: str) -> bool:
    parts = [p for p in re.split(r"[_.\-]|(?<=[a-z])(?=[A-Z])", name) if p]
    lowered = [p.lower() for p in parts]
    return any(p in _SECRET_WORDS for p in lowered) or name.lower().endswith(("apikey", "secret"))


def secret_name(name: str) -> bool:
    """True when a part of a variable's name says it holds a secret (API_KEY, dbPassword, GH_TOKEN)."""
    return _secret_name(name)


def _assignment(match: re.Match[str]) -> str:
    value = match.group("value")
    if not _secret_name(match.group("name")) or _HARMLESS_VALUE.match(value):
        return match.group(0)
    return f"{match.group('name')}{match.group('sep')}{match.group('quote')}{_marker('secret')}"


def _basic_credentials(match: re.Match[str]) -> str:
    encoded = match.group(2)
    try:
        decoded = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return match.group(0)
    user, colon, _ = decoded.partition(":")
    if not colon or not user or not decoded.isprintable():
        return match.group(0)
    return match.group(1) + _marker("basic_auth")


def drop_private(text: str) -> str:
    """Remove `<private>...</private>` spans (and a stray closing tag)."""
    return _PRIVATE_CLOSE.sub("", _PRIVATE.sub("", text))


def redact(text: str) -> str:
    """Return `text` with private spans removed and every recognised secret replaced by a marker."""
    return scrub(text)[0]


def scrub(text: str) -> tuple[str, int]:
    """Return (clean text, number of secrets replaced). Private spans are removed first."""
    count = 0

    def counted(replacement: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
        def apply(match: re.Match[str]) -> str:
            nonlocal count
            out = replacement(match)
            count += out != match.group(0)
            return out

        return apply

    clean = drop_private(text)
    clean = _PRIVATE_KEY.sub(counted(lambda m: _marker("private_key")), clean)
    for kind, pattern in _TOKENS:
        clean = pattern.sub(counted(lambda m, k=kind: _marker(k)), clean)  # type: ignore[misc]
    for kind, pattern in _PREFIXED:
        clean = pattern.sub(counted(lambda m, k=kind: m.group(1) + _marker(k)), clean)  # type: ignore[misc]
    clean = _BASIC.sub(counted(_basic_credentials), clean)
    clean = _ASSIGNMENT.sub(counted(_assignment), clean)
    return clean, count


def redact_json(value: Any, *, by_name: bool = True) -> Any:
    """Redact every string inside a JSON-like value (dict keys are kept, values cleaned).

    With `by_name`, the value of a key named like a secret (`"api_key": "..."`) is replaced
    whatever it looks like: right for captured data (hook payloads, tool input), wrong for our own
    structures, whose `key` fields hold identifiers and hashes.
    """
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: _redact_entry(key, item, by_name) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(item, by_name=by_name) for item in value]
    return value


def _redact_entry(key: Any, item: Any, by_name: bool) -> Any:
    if by_name and isinstance(key, str) and isinstance(item, str) and _secret_name(key) and item \
            and not _HARMLESS_VALUE.match(item):
        return _marker("secret")
    return redact_json(item, by_name=by_name)
