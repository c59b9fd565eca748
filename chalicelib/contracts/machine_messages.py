"""Messages on a machine's own SQS queue (server -> agent). Stdlib only: the agent imports it.

Every message is a JSON object with a `kind`. Messages are hints, never authority: the agent
claims a task or session through the API, which checks the state in Postgres, so a stale or
duplicated message is harmless.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

TASK = "task"                    # {"task_id", "dispatch_seq"}: claim and run it
CANCEL = "cancel"                # {"task_id"}: kill the task's process tree
SESSION_START = "session_start"  # {"session_id"}: start an interactive engine
SESSION_INPUT = "session_input"  # {"session_id", "seq", "text", "files"?}: write one user turn
SESSION_CLOSE = "session_close"  # {"session_id"}: end the interactive engine
SSH_RUN = "ssh_run"              # {"run_id"}: claim and run a one-off command on an SSH target
FOLDER_LIST = "folder_list"      # {"listing_id", "path", "offset"}: list a folder for the session picker
TASK_INPUT = "task_input"        # {"task_id", "seq", "text", "mode", "files"?}: a message for a running task:
                                 # "steer" (into the running turn) or "queue" (its next turn, the default)
SESSION_LIST = "session_list"    # {"listing_id", "path"}: list the terminal sessions /continue may resume
KINDS = frozenset({TASK, CANCEL, SESSION_START, SESSION_INPUT, SESSION_CLOSE, SSH_RUN, FOLDER_LIST,
                   TASK_INPUT, SESSION_LIST})
_NEEDS = {TASK: "task_id", CANCEL: "task_id", TASK_INPUT: "task_id", SSH_RUN: "run_id",
          FOLDER_LIST: "listing_id", SESSION_LIST: "listing_id"}  # the others need a session_id


@dataclass(frozen=True)
class MachineMessage:
    kind: str
    task_id: str | None = None
    session_id: str | None = None
    dispatch_seq: int = 0
    seq: int = 0
    text: str = ""
    run_id: str | None = None
    listing_id: str | None = None
    path: str = ""
    offset: int = 0
    mode: str = ""
    files: tuple[str, ...] = ()  # a session turn's or task message's attachments, by name: fetched by index

    def to_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"kind": self.kind}
        for key in ("task_id", "session_id", "run_id", "listing_id"):
            if getattr(self, key):
                body[key] = getattr(self, key)
        if self.kind == TASK:
            body["dispatch_seq"] = self.dispatch_seq
        if self.kind in (SESSION_INPUT, TASK_INPUT):
            body.update(seq=self.seq, text=self.text)
        if self.kind == TASK_INPUT and self.mode:
            body["mode"] = self.mode
        if self.files:
            body["files"] = list(self.files)
        if self.kind == FOLDER_LIST:
            body.update(path=self.path, offset=self.offset)
        if self.kind == SESSION_LIST:
            body.update(path=self.path)
        return body


class BadMessage(ValueError):
    """The body is not a machine message (a poison message: leave it for the DLQ)."""


def parse_machine_message(raw: str) -> MachineMessage:
    try:
        body = json.loads(raw)
    except ValueError:
        raise BadMessage("not JSON") from None
    if not isinstance(body, dict) or body.get("kind") not in KINDS:
        raise BadMessage("unknown message kind")
    kind = body["kind"]
    needs = _NEEDS.get(kind, "session_id")
    if not isinstance(body.get(needs), str) or not body[needs]:
        raise BadMessage(f"{kind} message without {needs}")
    try:
        return MachineMessage(kind=kind, task_id=body.get("task_id"), session_id=body.get("session_id"),
                              dispatch_seq=int(body.get("dispatch_seq", 0)), seq=int(body.get("seq", 0)),
                              text=str(body.get("text", "")), run_id=body.get("run_id"),
                              listing_id=body.get("listing_id"), path=str(body.get("path", "")),
                              offset=int(body.get("offset", 0)), mode=str(body.get("mode", "")),
                              files=tuple(str(f) for f in body.get("files") or ()))
    except (TypeError, ValueError):
        raise BadMessage("bad field types") from None
