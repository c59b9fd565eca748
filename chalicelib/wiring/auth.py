"""Keys, machine onboarding and the web console's sign-in."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cached_property, partial
from typing import TYPE_CHECKING

from chalicelib.kernel.settings import Settings
from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.auth.services.authenticator import Authenticator
    from chalicelib.auth.services.key_admin import KeyAdmin
    from chalicelib.auth.services.machine_onboarding import MachineOnboarding
    from chalicelib.console.services.console_auth import ConsoleAuth
    from chalicelib.console.services.reads import ReadsFactory


ADMIN_KEYS_REFRESH_S = 60


def admin_keys(settings: Settings, *,
               clock: Callable[[], float] = time.monotonic) -> Callable[[], tuple[str, ...]]:
    """The deployment's admin keys as they are now: from their secret, read again every
    ADMIN_KEYS_REFRESH_S seconds, when the deployment names one; from the settings otherwise."""
    if not settings.api_keys_secret_id:
        fixed = settings.api_keys
        return lambda: fixed
    from chalicelib.kernel.secrets import RefreshedSecret

    secret = RefreshedSecret(settings.api_keys_secret_id, ttl_s=ADMIN_KEYS_REFRESH_S,
                             initial=",".join(settings.api_keys), clock=clock)
    return lambda: tuple(k.strip() for k in secret.value().split(",") if k.strip())


class AuthWiring(CoreWiring):
    # Scoped API keys (docs/deploy.md, "Keys"): the configured admin keys, then stored ones.
    @cached_property
    def key_admin(self) -> KeyAdmin:
        from chalicelib.auth.adapters.key_repository import key_units
        from chalicelib.auth.services.key_admin import KeyAdmin

        return KeyAdmin(key_units(self.db))

    @cached_property
    def authenticator(self) -> Authenticator:
        from chalicelib.auth.adapters.key_repository import key_units
        from chalicelib.auth.services.authenticator import Authenticator

        return Authenticator(key_units(self.db), admin_keys(self.settings),
                             namespace_reach=lambda names: self.namespaces.visible(names))

    @cached_property
    def machine_onboarding(self) -> MachineOnboarding:
        from chalicelib.auth.adapters.key_repository import invite_units
        from chalicelib.auth.services.machine_onboarding import MachineOnboarding

        return MachineOnboarding(invite_units(self.db))

    @cached_property
    def console_auth(self) -> ConsoleAuth:
        from chalicelib.console.adapters.console_repository import console_units
        from chalicelib.console.services.console_auth import ConsoleAuth

        def admin_name(key: str) -> str | None:
            principal = self.authenticator.principal(key)
            return principal.name if principal is not None and principal.is_admin else None

        return ConsoleAuth(console_units(self.db), admin_name,
                           self.authenticator.still_live)

    @property
    def console_reads(self) -> ReadsFactory:
        from chalicelib.console.adapters.console_reads import console_reads

        return partial(console_reads, self.db)
