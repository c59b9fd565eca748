"""Create, list and revoke keys. A new key is returned once, with its record; only its hash is kept."""

from __future__ import annotations

import uuid

from chalicelib.auth.domain.api_keys import ApiKey, KeySpec, key_hash, key_prefix, new_key
from chalicelib.auth.services.ports import KeysUnitOfWorkFactory
from chalicelib.kernel.errors import NotFound


class KeyAdmin:
    def __init__(self, uow: KeysUnitOfWorkFactory) -> None:
        self._uow = uow

    def create(self, spec: KeySpec) -> tuple[ApiKey, str]:
        """Store a new key for `spec`; return its record and the key itself (never shown again)."""
        secret = new_key()
        with self._uow() as uow:
            stored = uow.keys.add(ApiKey(str(uuid.uuid4()), spec, key_prefix(secret)), key_hash(secret))
            uow.commit()
        return stored, secret

    def listing(self, *, include_revoked: bool = False) -> list[ApiKey]:
        with self._uow() as uow:
            return uow.keys.listing(include_revoked=include_revoked)

    def revoke(self, name: str) -> ApiKey:
        """Revoke the live key `name`. Every API process refuses it within the lookup cache's TTL."""
        with self._uow() as uow:
            revoked = uow.keys.revoke(name)
            if revoked is None:
                raise NotFound(f"no live key named {name!r}")
            uow.commit()
        return revoked
