"""The brain's unit of work over Postgres: its state, its proposals, and the observation queries."""

from __future__ import annotations

from typing import Any

from chalicelib.brain.adapters.brain_repositories import ProposalRepository, StateRepository
from chalicelib.brain.adapters.observation_queries import ObservationQueries
from chalicelib.kernel.unit_of_work import PostgresUnitOfWork


class PostgresBrainUnitOfWork(PostgresUnitOfWork):
    state: StateRepository
    proposals: ProposalRepository
    observations: ObservationQueries

    def _bind(self, conn: Any) -> None:
        self.state = StateRepository(conn)
        self.proposals = ProposalRepository(conn)
        self.observations = ObservationQueries(conn)
