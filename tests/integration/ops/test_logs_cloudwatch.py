"""`itachi logs --aws` against moto's CloudWatch Logs: the stack's log groups as Lambda writes them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import boto3

TASK = str(uuid.uuid4())
OTHER = str(uuid.uuid4())


def powertools(message: str, function: str, level: str = "INFO", **ids: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S,000+0000", time.gmtime())
    return json.dumps({"level": level, "location": "x:1", "message": message, "timestamp": stamp,
                       "service": "itachi", "function_name": function, **ids})


def test_itachi_logs_reads_a_tasks_lines_from_every_function_of_the_stack(tmp_path: Path,
                                                                        moto_endpoint: str) -> None:
    stack = f"itachi-t{uuid.uuid4().hex[:6]}"
    logs = boto3.client("logs", region_name="us-east-1", endpoint_url=moto_endpoint,
                        aws_access_key_id="test", aws_secret_access_key="test")
    now_ms = int(time.time() * 1000)
    written = {
        "api": [powertools("task created", f"{stack}-api", task_id=TASK),
                powertools("task created", f"{stack}-api", task_id=OTHER)],
        "dispatch-consumer": [powertools("task dispatched", f"{stack}-dispatch-consumer", task_id=TASK,
                                         machine_id="m1"),
                              "START RequestId: 1 Version: $LATEST"],
        "telegram-consumer": [powertools("update failed", f"{stack}-telegram-consumer", "ERROR",
                                         correlation_id=f"task:{TASK}")],
    }
    for function, lines in written.items():
        group = f"/aws/lambda/{stack}-{function}"
        logs.create_log_group(logGroupName=group)
        logs.create_log_stream(logGroupName=group, logStreamName="s1")
        logs.put_log_events(logGroupName=group, logStreamName="s1",
                            logEvents=[{"timestamp": now_ms + i, "message": m} for i, m in enumerate(lines)])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ITACHI_", "AWS_"))}
    env.update(ITACHI_HOME=str(tmp_path), AWS_ACCESS_KEY_ID="test", AWS_SECRET_ACCESS_KEY="test")

    def itachi_logs(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "agent.cli", "logs", "--aws", "--stack", stack,
                               "--region", "us-east-1", "--endpoint-url", moto_endpoint, *args],
                              capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    about_task = itachi_logs("--task", TASK[:8]).splitlines()
    errors = itachi_logs("--level", "ERROR").splitlines()
    api_only = itachi_logs("--function", "api").splitlines()

    assert [line.split()[3:5] for line in about_task] == [
        ["api", "task"], ["dispatch-consumer", "task"], ["telegram-consumer", "update"]]
    assert all(TASK in line for line in about_task)
    assert len(errors) == 1 and "ERROR" in errors[0] and f"correlation_id=task:{TASK}" in errors[0]
    assert len(api_only) == 2 and all(line.split()[3] == "api" for line in api_only)
