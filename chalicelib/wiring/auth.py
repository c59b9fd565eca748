"""Keys, machine onboarding and the web console's sign-in."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from chalicelib.kernel.settings import Settings
from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.bootstrap import Container
    from chalicelib.wiring.kits import auth as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.auth")


ADMIN_KEYS_REFRESH_S = 60


def admin_keys(settings: Settings, *,
               clock: Callable[[], float] = time.monotonic) -> Callable[[], tuple[str, ...]]:
    """The deployment's admin keys as they are now: from their secret, read again every
    ADMIN_KEYS_REFRESH_S seconds, when the deployment names one; from the settings otherwise."""
    if not settings.api_keys_secret_id:
        fixed = settings.api_keys
        return lambda: fixed
    secret = kit.RefreshedSecret(settings.api_keys_secret_id, ttl_s=ADMIN_KEYS_REFRESH_S,
                                 initial=",".join(settings.api_keys), clock=clock)
    return lambda: tuple(k.strip() for k in secret.value().split(",") if k.strip())


def _console_auth(c: Container) -> kit.ConsoleAuth:
    def admin_name(key: str) -> str | None:
        principal = c.authenticator.principal(key)
        return principal.name if principal is not None and principal.is_admin else None

    return kit.ConsoleAuth(kit.console_units(c.db), admin_name, c.authenticator.still_live)


class AuthWiring(CoreWiring):
    # Scoped API keys (docs/deploy.md, "Keys"): the configured admin keys, then stored ones.
    key_admin: kit.KeyAdmin = provide(lambda c: kit.KeyAdmin(kit.key_units(c.db)))
    # a namespace's reach is read when a key names one: the namespaces are built on that first use
    authenticator: kit.Authenticator = provide(
        lambda c: kit.Authenticator(kit.key_units(c.db), admin_keys(c.settings),
                                    namespace_reach=lambda names: c.namespaces.visible(names)))
    machine_onboarding: kit.MachineOnboarding = provide(
        lambda c: kit.MachineOnboarding(kit.invite_units(c.db)))
    console_auth: kit.ConsoleAuth = provide(_console_auth)

    @property
    def console_reads(self) -> kit.ReadsFactory:
        return partial(kit.console_reads, self.db)
