"""Subagents: profiles, runs (executed as tasks), messages, cron jobs, lessons, the lifecycle."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring

if TYPE_CHECKING:
    from chalicelib.agents.services.cron import AgentCron
    from chalicelib.agents.services.lessons import ProfileLessons
    from chalicelib.agents.services.lifecycle import SubagentLifecycle
    from chalicelib.agents.services.memory_scope import RunMemoryScopes
    from chalicelib.agents.services.messaging import AgentMessaging
    from chalicelib.agents.services.ports import AgentsUnits
    from chalicelib.agents.services.profiles import AgentProfiles
    from chalicelib.agents.services.runs import SubagentRuns


class AgentWiring(CoreWiring):
    # Subagents: profiles, runs (executed as tasks), messages, cron jobs, lessons, the lifecycle.
    @cached_property
    def agents_units(self) -> AgentsUnits:
        from chalicelib.agents.adapters.run_repository import agents_units

        return agents_units(self.db)

    @cached_property
    def agent_profiles(self) -> AgentProfiles:
        from chalicelib.agents.services.profiles import AgentProfiles

        return AgentProfiles(self.agents_units)

    @cached_property
    def agent_runs(self) -> SubagentRuns:
        from chalicelib.agents.services.runs import SubagentRuns

        return SubagentRuns(self.agents_units, self.tasks, self.agent_profiles)

    @cached_property
    def agent_messaging(self) -> AgentMessaging:
        from chalicelib.agents.services.messaging import AgentMessaging

        return AgentMessaging(self.agents_units, self.tasks, self.agent_runs)

    @cached_property
    def profile_lessons(self) -> ProfileLessons:
        from chalicelib.agents.services.lessons import ProfileLessons

        return ProfileLessons(self.agents_units)

    @cached_property
    def agent_cron(self) -> AgentCron:
        from chalicelib.agents.services.cron import AgentCron

        return AgentCron(self.agents_units, self.agent_runs)

    @cached_property
    def agent_lifecycle(self) -> SubagentLifecycle:
        from chalicelib.agents.services.lifecycle import SubagentLifecycle
        from chalicelib.agents.services.ports import NullReporter

        return SubagentLifecycle(self.agents_units, self.tasks, self.agent_runs, self.agent_messaging,
                                 self.profile_lessons, NullReporter())

    @cached_property
    def run_memory_scopes(self) -> RunMemoryScopes:
        """A run's memory scope, by its id (what its hooks send), from its task's engine options."""
        from chalicelib.agents.services.memory_scope import RunMemoryScopes

        return RunMemoryScopes(self.agents_units, self.tasks)

