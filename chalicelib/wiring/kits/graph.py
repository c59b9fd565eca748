"""What graph memory is built from."""

from chalicelib.graph.adapters.graph_repository import graph_units
from chalicelib.graph.domain.graph_model import Node
from chalicelib.graph.domain.reconcile_rules import CONTRADICTION, SUPERSEDES
from chalicelib.graph.services.graph_admin import GraphAdmin
from chalicelib.graph.services.graph_retrieve import GraphRetrieve
from chalicelib.graph.services.graph_store import GraphStore
from chalicelib.graph.services.ports import GraphUnits
from chalicelib.learning.domain.rule_reconciliation import StatedRule
