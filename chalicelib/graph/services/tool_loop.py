"""One tool-calling loop: at most 8 turns and 30 seconds, stopping at `done` or a turn without calls."""

from __future__ import annotations

import json
import time
from typing import Any

from chalicelib.graph.services.graph_tools import GraphTools
from chalicelib.llm.services.ports import ToolModel

MAX_TURNS = 8
TIMEOUT_S = 30.0


def run_tool_loop(
    model: ToolModel,
    purpose: str,
    system: str,
    user: str,
    tools: list[dict[str, Any]],
    runner: GraphTools,
    *,
    max_turns: int = MAX_TURNS,
    timeout_s: float = TIMEOUT_S,
) -> list[dict[str, Any]]:
    """Run the loop; answer each call made (name, arguments, result, milliseconds) for the trace."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    deadline = time.monotonic() + timeout_s
    calls: list[dict[str, Any]] = []
    for _ in range(max_turns):
        if time.monotonic() >= deadline:
            calls.append({"stopped": "timeout"})
            break
        turn = model.complete_tools(purpose, messages, tools)
        if turn is None or not turn.tool_calls:
            break
        messages.append(
            {
                "role": "assistant",
                "content": turn.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
                    }
                    for c in turn.tool_calls
                ],
            }
        )
        finished = False
        for call in turn.tool_calls:
            started = time.monotonic()
            result = runner.call(call.name, call.arguments)
            calls.append(
                {
                    "tool": call.name,
                    "arguments": call.arguments,
                    "result": result,
                    "ms": round((time.monotonic() - started) * 1000),
                }
            )
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, default=str)}
            )
            finished = finished or call.name == "done"
        if finished:
            break
    return calls
