"""Wire formats of the graph API (pydantic): queries and bodies, validated before any work."""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import Field, model_validator

from chalicelib.kernel.http import WireModel
from chalicelib.memory.domain.provenance import Source

Project = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
NodeId = UUID


class ContextQuery(WireModel):
    query: str = Field(min_length=1, max_length=2_000)
    project: str = Project
    deep: bool = False


class EntitiesQuery(WireModel):
    project: str = Project
    limit: int = Field(default=50, ge=1, le=500)
    prefix: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"^[^\x00-\x1f]+$")


class ProjectQuery(WireModel):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")


class ContradictionsQuery(WireModel):
    project: str | None = Field(default=None, min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    status: Literal["open", "keep_new", "keep_old", "keep_both"] = "open"
    limit: int = Field(default=50, ge=1, le=500)


class SupersedeIn(WireModel):
    project: str = Project
    old_id: NodeId
    new_content: str | None = Field(default=None, min_length=1, max_length=4_000)
    new_id: NodeId | None = None

    @model_validator(mode="after")
    def _one_replacement(self) -> SupersedeIn:
        if (self.new_content is None) == (self.new_id is None):
            raise ValueError("give exactly one of new_content and new_id")
        return self


class EdgeIn(WireModel):
    project: str = Project
    source_id: NodeId
    target_id: NodeId
    type: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z][A-Za-z0-9_ -]*$")


class IngestIn(WireModel):
    project: str = Project
    text: str = Field(min_length=1, max_length=20_000)
    # Where the text came from (the memory sources): tool, web and agent text builds untrusted nodes.
    source: Source = "user"
    session_id: str | None = Field(default=None, max_length=200)


class ResolveIn(WireModel):
    resolution: Literal["keep_new", "keep_old", "keep_both"]
