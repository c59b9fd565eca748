"""A no-op coding engine for bench/dispatch.py and bench/agent_spawn.py: logs when it started,
prints a result and exits; started with `--input-format stream-json` (a subagent run), it prints
one result per user turn read on stdin and exits when stdin closes."""

import time

STARTED = time.time()  # before anything else is imported: "the engine process started"

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

with open(os.environ["BENCH_ENGINE_LOG"], "a") as log:
    log.write(f"{os.environ.get('ITACHI_TASK_ID')} {STARTED}\n")
RESULT = json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "noop"})
if "--input-format" in sys.argv:
    for line in sys.stdin:
        if line.strip():
            print(RESULT, flush=True)
else:
    print(RESULT)
