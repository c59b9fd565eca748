"""What the graph's store and retrieve pipelines are built on."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from chalicelib.graph.services.ports import GraphUnits
from chalicelib.llm.services.ports import LanguageModel, ToolModel
from chalicelib.memory.services.ports import Embedder

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class GraphService:
    """The graph's units of work, the embedder (None: no vectors), the language model, the
    tool-calling model (None: no tool loop) and the clock."""

    def __init__(self, units: GraphUnits, embedder: Embedder | None, llm: LanguageModel,
                 tools: ToolModel | None, clock: Clock = utc_now) -> None:
        self._units = units
        self._embedder = embedder
        self._llm = llm
        self._tools = tools
        self._clock = clock
