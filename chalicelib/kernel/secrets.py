"""Secrets Manager values behind environment variables (production; local runs use plain variables).

A deployment names a secret instead of holding a value: `<VAR>_SECRET_ID=<name or ARN>` fills
`<VAR>` when `<VAR>` itself is unset. All referenced secrets are read in one
`BatchGetSecretValue` call, once per process, the first time `Settings` are built (a Lambda
container's first request, never at import). A secret still holding the placeholder `unset`
(created by the stack, not yet given a value) counts as empty, so that feature stays off.

`DATABASE_URL_SECRET_ID` points at the database credentials (JSON with username, password,
host, port, dbname, as RDS stores them); `DATABASE_HOST` overrides the host, so Lambdas reach
the database through RDS Proxy while the secret keeps the instance's address.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from chalicelib.kernel.errors import ConfigurationError

SUFFIX = "_SECRET_ID"
PLACEHOLDER = "unset"
_BATCH_LIMIT = 20

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
    return f"postgresql://{user}:{password}@{host}:{port}/{dbname}?sslmode={sslmode}"


def fetch_secrets(secret_ids: list[str]) -> dict[str, str]:
    """Read secrets by name or ARN with BatchGetSecretValue; raise naming any that is missing."""
    import boto3
    from botocore.config import Config

    client = boto3.client("secretsmanager", config=Config(connect_timeout=3, read_timeout=5,
                                                           retries={"max_attempts": 3, "mode": "standard"}))
    values: dict[str, str] = {}
    for start in range(0, len(secret_ids), _BATCH_LIMIT):
        wanted = secret_ids[start:start + _BATCH_LIMIT]
        response = client.batch_get_secret_value(SecretIdList=wanted)
        for error in response.get("Errors", []):
            raise ConfigurationError(f"cannot read secret {error.get('SecretId')}: {error.get('ErrorCode')}")
        for item in response.get("SecretValues", []):
            value = item.get("SecretString", "")
            # The answer names each secret by ARN and name; map back to the id that was asked for.
            for asked in wanted:
                if asked in (item.get("ARN"), item.get("Name")):
                    values[asked] = value
    missing = [s for s in secret_ids if s not in values]
    if missing:
        raise ConfigurationError(f"secrets not returned: {', '.join(missing)}")
    return values
