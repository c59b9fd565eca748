"""Subagents: profiles, runs (executed as tasks), messages, cron jobs, lessons, the lifecycle."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib.wiring.core import CoreWiring
from chalicelib.wiring.provide import ImportedOnUse, provide

if TYPE_CHECKING:
    from chalicelib.wiring.kits import agents as kit
else:
    kit = ImportedOnUse("chalicelib.wiring.kits.agents")


class AgentWiring(CoreWiring):
    agents_units: kit.AgentsUnits = provide(lambda c: kit.agents_units(c.db))
    agent_profiles: kit.AgentProfiles = provide(lambda c: kit.AgentProfiles(c.agents_units))
    agent_runs: kit.SubagentRuns = provide(
        lambda c: kit.SubagentRuns(c.agents_units, c.tasks, c.agent_profiles))
    agent_messaging: kit.AgentMessaging = provide(
        lambda c: kit.AgentMessaging(c.agents_units, c.tasks, c.agent_runs))
    profile_lessons: kit.ProfileLessons = provide(lambda c: kit.ProfileLessons(c.agents_units))
    agent_cron: kit.AgentCron = provide(lambda c: kit.AgentCron(c.agents_units, c.agent_runs))
    agent_lifecycle: kit.SubagentLifecycle = provide(lambda c: kit.SubagentLifecycle(
        c.agents_units, c.tasks, c.agent_runs, c.agent_messaging, c.profile_lessons, kit.NullReporter()))
    # a run's memory scope, by its id (what its hooks send), from its task's engine options
    run_memory_scopes: kit.RunMemoryScopes = provide(lambda c: kit.RunMemoryScopes(c.agents_units, c.tasks))
