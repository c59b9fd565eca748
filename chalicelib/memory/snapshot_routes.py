"""Snapshots and profiles of a project's memory: create, list and load; list, load and unload."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chalice import Response
from pydantic import BaseModel, ConfigDict, Field

from chalicelib.kernel.http import ApiBlueprint, ok, parse_body, parse_query

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_snapshots import MemorySnapshots


class Uses:
    memory_snapshots: MemorySnapshots


bp = ApiBlueprint(__name__, Uses)
Project = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
Name = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, defer_build=True)


class ProjectQuery(_Wire):
    project: str = Project


class SnapshotIn(_Wire):
    project: str = Project
    name: str = Name


class LoadIn(SnapshotIn):
    yes: bool = False  # replace live memories (an automatic snapshot is taken first)


class UnloadIn(_Wire):
    project: str = Project
    yes: bool = False


@bp.route("/api/memory/snapshots", methods=["GET"])
def list_snapshots() -> Response:
    """The project's snapshots, newest first."""
    q = parse_query(bp.current_request, ProjectQuery)
    snaps = bp.services.memory_snapshots.listing(q.project)
    return ok({"project": q.project, "snapshots": [
        {**s, "created_at": s["created_at"].isoformat()} for s in snaps]})


@bp.route("/api/memory/snapshots", methods=["POST"])
def create_snapshot() -> Response:
    """A consistent copy of the project's memories, archives and access counts."""
    body = parse_body(bp.current_request, SnapshotIn)
    counts = bp.services.memory_snapshots.create(body.project, body.name)
    return ok({"project": body.project, "name": body.name, "counts": counts}, status=201)


@bp.route("/api/memory/snapshots/load", methods=["POST"])
def load_snapshot() -> Response:
    """Restore a snapshot in place (over live memories only with yes; a snapshot is taken first)."""
    body = parse_body(bp.current_request, LoadIn)
    return ok(bp.services.memory_snapshots.load(body.project, body.name, yes=body.yes))


@bp.route("/api/memory/profiles", methods=["GET"])
def profiles() -> Response:
    """The built-in profiles and the one the project has loaded."""
    q = parse_query(bp.current_request, ProjectQuery)
    snaps = bp.services.memory_snapshots
    return ok({"profiles": snaps.profiles(), **snaps.active(q.project)})


@bp.route("/api/memory/profiles/load", methods=["POST"])
def load_profile() -> Response:
    """Replace the project's memory by a profile's items (with yes over live memories)."""
    body = parse_body(bp.current_request, LoadIn)
    return ok(bp.services.memory_snapshots.load_profile(body.project, body.name, yes=body.yes))


@bp.route("/api/memory/profiles/unload", methods=["POST"])
def unload_profile() -> Response:
    """Clear the project's memory (with yes; a snapshot is taken first)."""
    body = parse_body(bp.current_request, UnloadIn)
    return ok(bp.services.memory_snapshots.unload(body.project, yes=body.yes))
