"""What the subagents' services are built from."""

from chalicelib.agents.adapters.run_repository import agents_units
from chalicelib.agents.services.cron import AgentCron
from chalicelib.agents.services.lessons import ProfileLessons
from chalicelib.agents.services.lifecycle import SubagentLifecycle
from chalicelib.agents.services.memory_scope import RunMemoryScopes
from chalicelib.agents.services.messaging import AgentMessaging
from chalicelib.agents.services.ports import AgentsUnits, NullReporter
from chalicelib.agents.services.profiles import AgentProfiles
from chalicelib.agents.services.runs import SubagentRuns
