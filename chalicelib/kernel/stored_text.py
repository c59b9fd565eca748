"""The one redaction step of every write: text is redacted on its way into the database.

`redact_on_write(conn)` (the pool calls it for each connection it opens) registers psycopg
dumpers so that every `str` parameter, every element of a text array and every string inside a
json/jsonb parameter passes through `kernel.redaction.redact` before it leaves the process:
whichever route, worker or consumer wrote it, and whatever table a new feature adds. Services
still redact what they embed, log or send elsewhere; storing it again changes nothing, as
redaction is idempotent. A lookup by a value is redacted the same way as the value was when it
was stored, so the two still meet.

Strings inside json are redacted by their text only (`redact_json(by_name=False)`): our own
structures name identifiers `key`, so the rule "a key named like a secret loses its value" is
applied by the services that store captured data (hook payloads, tool input), not here.

A value the database must keep exactly as given is wrapped in `Verbatim`: keys built from names
(an idempotency key `laptop-key:...` is not a `key: value` pair, and two of them must not become
one marker), a token compared later (a console session's CSRF token), and text its writer has
already redacted by its structure (a kept reply's JSON). No I/O, and no psycopg import until
a connection is configured.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from chalicelib.kernel.redaction import redact, redact_json

if TYPE_CHECKING:
    import psycopg
    from psycopg.adapt import Dumper


class Verbatim(str):
    """A text stored exactly as given (an identifier, a token compared later, text already redacted)."""

    __slots__ = ()


def redact_on_write(conn: psycopg.Connection[Any]) -> None:
    """Make `conn` redact every text parameter it sends (Verbatim ones excepted)."""
    from psycopg.types import string
    from psycopg.types.json import set_json_dumps

    adapters = conn.adapters
    for plain in (string.StrBinaryDumper, string.StrDumperUnknown):
        adapters.register_dumper(Verbatim, plain)
    # psycopg's own order: the last one registered for each format is the default for `%s`.
    for base in (string.StrBinaryDumperName, string.StrBinaryDumperVarchar, string.StrBinaryDumper,
                 string.StrDumperName, string.StrDumperVarchar, string.StrDumper, string.StrDumperUnknown):
        adapters.register_dumper(str, _redacting(base))
    set_json_dumps(_redacted_json, conn)


def _redacting(base: type[Dumper]) -> type[Dumper]:
    def dump(self: Any, obj: str) -> Any:
        return base.dump(self, redact(obj))

    return type(f"Redacting{base.__name__}", (base,), {"dump": dump})


def _redacted_json(value: Any) -> str:
    return json.dumps(redact_json(value, by_name=False))
