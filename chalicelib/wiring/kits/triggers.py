"""What GitHub-triggered tasks are built from."""

from chalicelib.codeintel.adapters.github_client import GitHubClient
from chalicelib.kernel.idempotency import PostgresClaims
from chalicelib.kernel.unit_of_work import postgres_units
from chalicelib.telegram.services.task_topics import TaskTopics
from chalicelib.triggers.services.github_triggers import GitHubTriggers
