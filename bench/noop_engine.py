"""A no-op coding engine for bench/dispatch.py: logs when it started, prints a result, exits."""

import time

STARTED = time.time()  # before anything else is imported: "the engine process started"

import json  # noqa: E402
import os  # noqa: E402

with open(os.environ["BENCH_ENGINE_LOG"], "a") as log:
    log.write(f"{os.environ.get('ITACHI_TASK_ID')} {STARTED}\n")
print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "noop"}))
