"""What the memory core and its lifecycle are built from."""

from chalicelib.memory.adapters.memory_unit_of_work import memory_units
from chalicelib.memory.domain.memory_model import SearchHit
from chalicelib.memory.domain.search_scoring import SearchWeights
from chalicelib.memory.services.lifecycle_ports import LifecycleUnits
from chalicelib.memory.services.memory_eviction import MemoryEviction
from chalicelib.memory.services.memory_integrity import MemoryIntegrity
from chalicelib.memory.services.memory_lifecycle import MemoryLifecycle
from chalicelib.memory.services.memory_recall import MemoryRecall
from chalicelib.memory.services.memory_reducers import DeterministicReducer, LlmReducer
from chalicelib.memory.services.memory_review import MemoryReview
from chalicelib.memory.services.memory_service import MemoryService
from chalicelib.memory.services.memory_snapshots import MemorySnapshots
from chalicelib.memory.services.memory_tool import MemoryTool
from chalicelib.memory.services.memory_transfer import MemoryTransfer
from chalicelib.memory.services.ports import MemoryUnits
from chalicelib.memory.services.rule_import import RuleImport
from chalicelib.memory.services.scoped_reads import ScopedReads
from chalicelib.memory.services.search_explain import SearchExplainer
from chalicelib.memory.services.search_facts import SearchFacts
