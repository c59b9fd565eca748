"""Profiles: the built-in ones and the user's own (`itachi agents profile add|list|show|rm`)."""

from __future__ import annotations

from chalicelib.agents.domain.builtin_profiles import BUILTIN_PROFILES
from chalicelib.agents.domain.profiles import Profile
from chalicelib.agents.services.ports import AgentsUnits
from chalicelib.kernel.errors import Conflict, NotFound, or_not_found


class AgentProfiles:
    def __init__(self, units: AgentsUnits) -> None:
        self._units = units

    def all(self) -> list[Profile]:
        with self._units() as uow:
            users = uow.profiles.all()
        return [*BUILTIN_PROFILES.values(), *sorted(users, key=lambda p: p.name)]

    def get(self, name: str) -> Profile:
        builtin = BUILTIN_PROFILES.get(name)
        if builtin is not None:
            return builtin
        with self._units() as uow:
            profile = uow.profiles.get(name)
        return or_not_found(profile, f"no agent profile {name!r}; see `itachi agents profile list`")

    def save(self, profile: Profile) -> Profile:
        """Add or replace a user profile; a built-in name is refused."""
        if profile.name in BUILTIN_PROFILES:
            raise Conflict(f"{profile.name!r} is a built-in profile; choose another name")
        with self._units() as uow:
            saved = uow.profiles.upsert(profile)
            uow.commit()
        return saved

    def remove(self, name: str) -> None:
        if name in BUILTIN_PROFILES:
            raise Conflict(f"{name!r} is a built-in profile and cannot be removed")
        with self._units() as uow:
            removed = uow.profiles.delete(name)
            uow.commit()
        if not removed:
            raise NotFound(f"no agent profile {name!r}")
