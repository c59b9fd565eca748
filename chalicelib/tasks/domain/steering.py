"""Steering a running task: how a message written to it reaches its engine, and what the topic says.

`steer` writes the message into the engine's running turn when the engine reads input mid-turn
(Claude Code's stream-json stdin); otherwise, and always in `queue` mode, the message waits for
the turn to end and becomes the next turn (a resumed engine session for one-shot engines).
"""

from __future__ import annotations

from chalicelib.kernel.errors import InvalidInput

STEER, QUEUE = "steer", "queue"
MODES = (STEER, QUEUE)
MAX_MESSAGE = 10_000
STEERED, QUEUED, NEXT_TURN = "steered", "queued", "next_turn"  # the agent's `input` deliveries
INPUT_KIND, QUEUED_KIND = "input", "input_queued"  # task events: delivered, waiting for the turn's end
MESSAGE_KIND = "user_input"  # the task event that records the user's message (silent in the topic)


def parse_mode(value: str) -> str:
    """A steering mode from a setting or a command word."""
    mode = value.strip().lower()
    if mode not in MODES:
        raise InvalidInput(f"the steering mode is {' or '.join(MODES)}, not {value!r}", field="mode")
    return mode


def check_message(text: str, *, attached: int = 0) -> str:
    """The message stripped; 1 to MAX_MESSAGE characters (none needed when it carries files)."""
    text = text.strip()
    if (not text and not attached) or len(text) > MAX_MESSAGE:
        raise InvalidInput(f"a message to a task is 1 to {MAX_MESSAGE} characters", field="text")
    return text


def delivery(mode: str, *, streams_input: bool, turn_running: bool) -> str:
    """STEERED into the running turn, or QUEUED for after it."""
    if mode == STEER and streams_input and turn_running:
        return STEERED
    return QUEUED


def acknowledgement(how: str, text: str) -> str:
    """The topic's line for a message the agent took: delivered now, queued, or its turn started."""
    first = " ".join(text.split())
    first = first if len(first) <= 200 else first[:199] + "…"
    said = {STEERED: "delivered into the running turn", QUEUED: "queued for after this turn",
            NEXT_TURN: "sent as the next turn"}[how]
    return f"📨 {said}: {first}"
