"""`POST /api/memory-tool`: Claude's memory tool commands on a project's memory files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from chalice import Response
from pydantic import BaseModel, ConfigDict, Field, model_validator

from chalicelib.auth.request_principal import request_writer
from chalicelib.kernel.http import ApiBlueprint, ok, parse_body
from chalicelib.memory.domain.memory_files import ToolCommand, memory_path

if TYPE_CHECKING:
    from chalicelib.memory.services.memory_tool import MemoryTool


class Uses:
    memory_tool: MemoryTool


bp = ApiBlueprint(__name__, Uses)

# The fields each command needs (the tool's names); text fields are kept exactly as sent.
REQUIRED = {"view": ("path",), "create": ("path", "file_text"), "str_replace": ("path", "old_str"),
            "insert": ("path", "insert_line", "insert_text"), "delete": ("path",),
            "rename": ("old_path", "new_path")}
FileText = Field(default=None, max_length=200_000)


class MemoryToolIn(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)

    project: str = Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f]+$")
    command: Literal["view", "create", "str_replace", "insert", "delete", "rename"]
    path: str | None = Field(default=None, max_length=2_000)
    view_range: list[int] | None = Field(default=None, min_length=2, max_length=2)
    file_text: str | None = FileText
    old_str: str | None = FileText
    new_str: str | None = FileText
    insert_line: int | None = Field(default=None, ge=-(2**31), le=2**31 - 1)
    insert_text: str | None = FileText
    old_path: str | None = Field(default=None, max_length=2_000)
    new_path: str | None = Field(default=None, max_length=2_000)

    @model_validator(mode="after")
    def _fields_of_the_command(self) -> MemoryToolIn:
        absent = [name for name in REQUIRED[self.command] if getattr(self, name) is None]
        if absent:
            raise ValueError(f"Parameter `{absent[0]}` is required for command: {self.command}")
        return self

    def tool_command(self) -> ToolCommand:
        """The command with its paths checked (400 for any path that could leave /memories)."""
        paths = {name: memory_path(getattr(self, name), name) for name in ("path", "old_path", "new_path")
                 if getattr(self, name) is not None}
        view_range = tuple(self.view_range) if self.view_range else None
        return ToolCommand(command=self.command, view_range=view_range,
                           file_text=self.file_text or "", old_str=self.old_str or "",
                           new_str=self.new_str or "", insert_line=self.insert_line or 0,
                           insert_text=self.insert_text or "", **paths)


@bp.route("/api/memory-tool", methods=["POST"])
def memory_tool() -> Response:
    """Run one memory tool command (view, create, str_replace, insert, delete, rename) on /memories."""
    body = parse_body(bp.current_request, MemoryToolIn)
    command = body.tool_command()
    return ok({"result": bp.services.memory_tool.run(body.project, command, request_writer())})
