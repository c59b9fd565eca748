"""The closed sets of values in the agent's REST bodies. Stdlib only, and cheap to import.

Kept apart from `agent_api` (whose dataclasses cost a Lambda cold start some milliseconds to
build) so that the server's request models can name them at import time.
"""

from __future__ import annotations

from typing import Literal

MachineStatus = Literal["online", "draining", "offline"]
ResultStatus = Literal["completed", "failed", "cancelled", "timed_out"]
Outcome = Literal["success", "failure", "cancelled"]
Engine = Literal["claude", "codex", "gemini"]
