"""The API's door: find the request's principal from its bearer key and apply the access policy.

`app.py` calls `admit` before the route and `vet_answer` after it. Nothing here logs a key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chalicelib.auth.domain.access_policy import answer_refusal, refusal, rule_for
from chalicelib.auth.domain.api_keys import Principal
from chalicelib.auth.domain.machine_scope import MachineOf
from chalicelib.auth.services.authenticator import Authenticator

UNAUTHORIZED = "missing, invalid or revoked API key (Authorization: Bearer <key>)"


def bearer(headers: Mapping[str, str]) -> str:
    scheme, _, token = (headers.get("authorization") or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _json(raw: bytes | str | None) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None  # the route answers 400


Admission = tuple[Principal | None, str | None]


def admit(authenticator: Authenticator, method: str, path: str, headers: Mapping[str, str],
          query: Mapping[str, str] | None, raw_body: bytes | str | None,
          params: Mapping[str, str] | None = None, machine_of: MachineOf | None = None) -> Admission:
    """(principal, None) to go ahead; (None, None) for 401; (principal, reason) for 403. `params` are
    the path's parameters; `machine_of` finds the machine of the resource a machine key acts on."""
    principal = authenticator.principal(bearer(headers))
    if principal is None:
        return None, None
    if principal.is_admin:
        return principal, None
    refused = refusal(principal, method, path, dict(query or {}), _json(raw_body), dict(params or {}),
                      machine_of)
    return principal, refused.message if refused else None


def vet_answer(principal: Principal, method: str, path: str, body: Any) -> str | None:
    """A reason to withhold a by-id answer about a project the principal may not see."""
    if principal.is_admin:
        return None
    refused = answer_refusal(principal, rule_for(method, path), body)
    return refused.message if refused else None
