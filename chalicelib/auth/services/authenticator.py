"""Find who a bearer key belongs to: the deployment's configured admin keys, then stored keys.

Configured keys (`ITACHI_API_KEY(S)`) are compared in constant time; they are asked for on
every request (in AWS the wiring reads their secret again every minute: a rotation needs no
redeploy). A stored key is found by
the SHA-256 of what was presented (an index lookup: nothing about the stored keys leaks through
timing). Found keys are cached for `ttl_s` (default 30 s) so a busy process asks the database
once per key and half-minute; a revoked key is therefore refused everywhere within `ttl_s`.
Unknown keys are not cached: a new key works at once. A key limited to namespaces sees their
member projects as they were when it was cached: a member added or removed counts within `ttl_s`.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeAlias

from chalicelib.auth.domain.api_keys import DEPLOYMENT_ADMIN, Principal, key_hash
from chalicelib.auth.services.ports import KeysUnitOfWorkFactory

CACHE_TTL_S = 30.0
_MAX_CACHED = 1000
ConfiguredKeys: TypeAlias = tuple[str, ...] | Callable[[], tuple[str, ...]]
NamespaceReach: TypeAlias = Callable[[Sequence[str]], frozenset[str]]  # namespaces -> members and scopes


class Authenticator:
    def __init__(self, uow: KeysUnitOfWorkFactory, configured_keys: ConfiguredKeys, *,
                 ttl_s: float = CACHE_TTL_S, clock: Callable[[], float] = time.monotonic,
                 namespace_reach: NamespaceReach | None = None) -> None:
        self._uow = uow
        self._reach = namespace_reach or (lambda names: frozenset())
        self._configured = configured_keys if callable(configured_keys) else (lambda: configured_keys)
        self._ttl_s = ttl_s
        self._clock = clock
        self._cache: dict[bytes, tuple[float, Principal]] = {}
        self._lock = threading.Lock()

    def principal(self, presented: str) -> Principal | None:
        """The principal of `presented`, or None when it is no live key."""
        if not presented:
            return None
        raw = presented.encode("utf-8", errors="surrogatepass")
        configured = [key.encode() for key in self._configured()]
        if any([hmac.compare_digest(raw, key) for key in configured]):  # every key compared
            return DEPLOYMENT_ADMIN
        digest = key_hash(presented)
        now = self._clock()
        with self._lock:
            cached = self._cache.get(digest)
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        with self._uow() as uow:
            key = uow.keys.live_by_hash(digest)
        if key is None:
            with self._lock:
                self._cache.pop(digest, None)
            return None
        namespaces = key.spec.namespaces
        found = Principal.of(key, self._reach(namespaces) if namespaces else frozenset())
        with self._lock:
            if len(self._cache) >= _MAX_CACHED:
                self._cache.clear()
            self._cache[digest] = (now, found)
        return found

    def still_live(self, digest: bytes) -> bool:
        """Whether the key whose SHA-256 is `digest` is live now: configured, or stored and not
        revoked. Never cached: what a revocation ends must end on the next request."""
        configured = [key_hash(key) for key in self._configured()]
        if any([hmac.compare_digest(digest, mine) for mine in configured]):
            return True
        with self._uow() as uow:
            return uow.keys.live_by_hash(digest) is not None
