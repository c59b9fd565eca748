"""Secrets Manager values behind environment variables (production; local runs use plain variables).

A deployment names a secret instead of holding a value: `<VAR>_SECRET_ID=<name or ARN>` fills
`<VAR>` when `<VAR>` itself is unset. All referenced secrets are read through Powertools
parameters (one batch, cached for five minutes) the first time `Settings` are built (a Lambda
container's first request, never at import). A secret still holding the placeholder `unset`
(created by the stack, not yet given a value) counts as empty, so that feature stays off.

`DATABASE_URL_SECRET_ID` points at the database credentials (JSON with username, password,
host, port, dbname, as RDS stores them); `DATABASE_HOST` overrides the host, so Lambdas reach
the database through RDS Proxy while the secret keeps the instance's address. `DATABASE_SSLMODE`
(default `require`; the stack sets `verify-full`) and `DATABASE_SSLROOTCERT` (the CA bundle
shipped in the Lambda zip) say how the server's certificate is checked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.logging import get_logger

SUFFIX = "_SECRET_ID"
PLACEHOLDER = "unset"
# A rotated secret is picked up by a process at most this long after rotation.
SECRET_TTL_S = 300

Fetch = Callable[[list[str]], dict[str, str]]


def secret_references(env: Mapping[str, str]) -> dict[str, str]:
    """Return {VAR: secret id} for every `VAR_SECRET_ID` whose VAR is not already set."""
    refs: dict[str, str] = {}
    for key, secret_id in env.items():
        if key.endswith(SUFFIX) and secret_id:
            target = key[: -len(SUFFIX)]
            if not env.get(target):
                refs[target] = secret_id
    return refs


def resolve_secret_env(env: Mapping[str, str], fetch: Fetch | None = None) -> Mapping[str, str]:
    """Return `env` with every referenced secret filled in; `env` itself when none is referenced."""
    refs = secret_references(env)
    if not refs:
        return env
    values = (fetch or fetch_secrets)(sorted(set(refs.values())))
    resolved = dict(env)
    for target, secret_id in refs.items():
        raw = values.get(secret_id, "")
        resolved[target] = "" if raw.strip() == PLACEHOLDER else _decode(target, raw, env)
    return resolved


def _decode(target: str, raw: str, env: Mapping[str, str]) -> str:
    if target != "DATABASE_URL" or raw.startswith(("postgres://", "postgresql://")):
        return raw.strip()
    try:
        creds: dict[str, Any] = json.loads(raw)
        user, password = quote(str(creds["username"]), safe=""), quote(str(creds["password"]), safe="")
    except (ValueError, KeyError, TypeError):
        raise ConfigurationError("the database secret is neither a URL nor RDS credentials JSON") from None
    host = env.get("DATABASE_HOST") or creds.get("host")
    if not host:
        raise ConfigurationError("the database secret has no host and DATABASE_HOST is not set")
    port = creds.get("port") or 5432
    dbname = creds.get("dbname") or "itachi"
    sslmode = env.get("DATABASE_SSLMODE", "require")
    url = f"postgresql://{user}:{password}@{host}:{port}/{dbname}?sslmode={quote(sslmode, safe='')}"
    rootcert = env.get("DATABASE_SSLROOTCERT")
    return f"{url}&sslrootcert={quote(rootcert, safe='/')}" if rootcert else url


def fetch_secrets(secret_ids: list[str], *, fresh: bool = False) -> dict[str, str]:
    """Read secrets by name or ARN through Powertools parameters (cached for SECRET_TTL_S seconds;
    `fresh`: read now, whatever is cached)."""
    from aws_lambda_powertools.utilities import parameters

    try:
        names = sorted({_name_of(s) for s in secret_ids})
        values = parameters.get_secrets_by_name(names, max_age=SECRET_TTL_S, force_fetch=fresh)
    except (parameters.exceptions.GetParameterError, parameters.exceptions.GetSecretError) as exc:
        raise ConfigurationError(f"cannot read secrets: {type(exc.__cause__ or exc).__name__}") from None
    found = {asked: values.get(_name_of(asked)) for asked in secret_ids}
    missing = [asked for asked, value in found.items() if value is None]
    if missing:
        raise ConfigurationError(f"secrets not returned: {', '.join(missing)}")
    return {asked: value if isinstance(value, str) else str(value) for asked, value in found.items()}


class RefreshedSecret:
    """One secret's value, read again when `ttl_s` has passed since the last read: a value rotated
    in Secrets Manager is taken that soon, without a redeploy. A failed read keeps the last value."""

    def __init__(self, secret_id: str, *, ttl_s: float, initial: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._id, self._ttl_s, self._clock = secret_id, ttl_s, clock
        self._value, self._read_at = initial, clock() if initial is not None else None
        self._lock = threading.Lock()

    def value(self) -> str:
        with self._lock:
            now = self._clock()
            if self._read_at is None or now - self._read_at >= self._ttl_s:
                try:
                    raw = fetch_secrets([self._id], fresh=True)[self._id]
                    self._value = "" if raw.strip() == PLACEHOLDER else raw.strip()
                except ConfigurationError as exc:
                    if self._value is None:
                        raise
                    get_logger().warning("secret unreadable, keeping its last value",
                                         extra={"secret": _name_of(self._id), "reason": exc.args[0]})
                self._read_at = now
            return self._value or ""


def _name_of(secret_id: str) -> str:
    """The secret's name (asked and answered by name): an ARN ends in `:secret:<name>-<6 chars>`."""
    if ":secret:" not in secret_id:
        return secret_id
    return secret_id.split(":secret:", 1)[1].rsplit("-", 1)[0]
