"""What every capability builds on: the database pool and the queues."""

from chalicelib.kernel.database import Database
from chalicelib.kernel.queues import SqsQueues
