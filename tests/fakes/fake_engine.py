"""A fake coding engine: prints Claude-, Codex- or Gemini-shaped NDJSON, as the agent expects.

Run as `python fake_engine.py --as claude|codex|gemini <the engine's usual flags>` (set it as
ITACHI_ENGINE_<NAME>_COMMAND). What it does comes from directives in the prompt:

  [fake:write=PATH]         write PATH (relative to the working directory)
  [fake:sleep=S]            sleep S seconds before answering
  [fake:sleep_once=S]       sleep S seconds on attempt 1 only (ITACHI_TASK_ATTEMPT)
  [fake:child]              start a child process in its group that sleeps (process-tree tests)
  [fake:rate_limit=E1,E2]   when running as one of these engines, report a rate limit, exit 1
  [fake:fail]               report an error result and exit 1
  [fake:spend=USD]          (as claude) report a model response costing USD every 0.2 s, 60 times

With `--input-format stream-json` it is Claude Code reading its turns on stdin (a task's prompt
is its first turn): one answer (`echo: ...`) and one `result` line per user message read from
stdin, until stdin closes, after doing the message's directives; a message written while a
turn sleeps is taken into that turn (`steered: ...`, logged as `steered`), as Claude Code takes
a message sent mid-turn; a message with `[fake:rate_limit=claude]` gets Claude's rate-limit
lines instead (the process stays up, as Claude Code does). Codex and Gemini sessions are one
process per turn: a turn that resumes (`codex exec ... resume ID PROMPT`, `gemini --resume ID
-p PROMPT`) continues that session id and says so. `codex app-server` and `gemini
--experimental-acp` speak those JSON-RPC protocols and ask before commands and writes
(`fake_engine_rpc.py`).
ITACHI_FAKE_ENGINE_LOG, if set, gets one JSON line per start (with its argv, its prompt, the
session it resumes (`--resume ID`, Codex's `resume ID`) and the variables named in
ITACHI_FAKE_ENGINE_ECHO_ENV), per interactive turn, and per end (pid, time, task, attempt). As claude with
CLAUDE_CONFIG_DIR set, it also writes a transcript where Claude Code keeps them
(`<dir>/projects/<encoded cwd>/<session>.jsonl`), a rate limit recorded as an API error
message (`isApiErrorMessage`).
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

DIRECTIVE = re.compile(r"\[fake:([a-z_]+)(?:=([^\]]*))?\]")
TRANSCRIPT: list[Path] = []


def emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()
    if TRANSCRIPT and obj.get("type") == "assistant":
        entry = {k: v for k, v in obj.items() if k not in ("error", "api_error_status")}
        entry.update(sessionId=TRANSCRIPT[0].stem, cwd=os.getcwd())
        if obj.get("error"):
            entry["isApiErrorMessage"] = True
        with TRANSCRIPT[0].open("a") as fh:
            fh.write(json.dumps(entry) + "\n")


def open_transcript(engine: str) -> None:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    if engine == "claude" and config:
        folder = Path(config) / "projects" / re.sub(r"[^A-Za-z0-9]", "-", os.getcwd())
        folder.mkdir(parents=True, exist_ok=True)
        TRANSCRIPT.append(folder / f"fake-session-{os.getpid()}.jsonl")


def log(event: str, **fields: Any) -> None:
    path = os.environ.get("ITACHI_FAKE_ENGINE_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(json.dumps({"event": event, "pid": os.getpid(), "t": time.time(),
                                 "task": os.environ.get("ITACHI_TASK_ID"),
                                 "attempt": os.environ.get("ITACHI_TASK_ATTEMPT"),
                                 "fallback": os.environ.get("ITACHI_FALLBACK_ACTIVE"), **fields}) + "\n")


def prompt_of(argv: list[str]) -> str:
    if "-p" in argv:
        i = argv.index("-p")
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            return argv[i + 1]
    takes_value = {"--output-format", "--input-format", "--model", "--permission-mode", "--resume",
                   "--approval-mode"}
    words = [w for i, w in enumerate(argv)
             if not w.startswith("-") and (i == 0 or argv[i - 1] not in takes_value)]
    return words[-1] if words else ""


def assistant(content: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def say(engine: str, text: str) -> None:
    if engine == "codex":
        emit({"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": text}})
    elif engine == "gemini":
        emit({"type": "message", "role": "assistant", "content": text, "delta": True})
    else:
        emit(assistant([{"type": "text", "text": text}]))


def wrote(engine: str, path: str) -> None:
    if engine == "codex":
        change = {"id": "i2", "type": "file_change", "changes": [{"path": path}]}
        emit({"type": "item.completed", "item": change})
    elif engine == "gemini":
        emit({"type": "tool_use", "tool_name": "write_file", "tool_id": "t1",
              "parameters": {"file_path": path}})
    else:
        emit(assistant([{"type": "tool_use", "id": "t1", "name": "Write",
                         "input": {"file_path": path, "content": "..."}}]))


def finish(engine: str, text: str, *, error: bool = False, limited: bool = False) -> None:
    if engine == "codex":
        if error or limited:
            emit({"type": "turn.failed", "error": {"message": "429 Too Many Requests" if limited else text}})
        else:
            emit({"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 5}})
    elif engine == "gemini":
        if limited:
            emit({"type": "error", "severity": "error", "message": "RESOURCE_EXHAUSTED: quota exceeded"})
        emit({"type": "result", "status": "error" if error or limited else "success", "stats": {}})
    else:
        result: dict[str, Any] = {"type": "result", "subtype": "success", "is_error": error or limited,
                                  "result": text, "total_cost_usd": 0.001, "num_turns": 1}
        if limited:
            emit({**assistant([{"type": "text", "text": "API Error: Request rejected (429)"}]),
                  "error": "rate_limit", "api_error_status": 429})
            result.update(api_error_status=429, api_error_type="rate_limit_error",
                          result="API Error: Request rejected (429) · rate limited by the fake")
        emit(result)


def spend(usd: float) -> None:
    """Rising cost: responses whose output tokens cost `usd` each at Sonnet's $15 per million."""
    for n in range(60):
        usage = {"input_tokens": 0, "output_tokens": round(usd * 1_000_000 / 15)}
        emit({"type": "assistant", "message": {"id": f"msg_spend_{n}", "model": "claude-sonnet-4-5",
                                               "role": "assistant", "usage": usage,
                                               "content": [{"type": "text", "text": f"step {n}"}]}})
        time.sleep(0.2)


def interactive(engine: str, resume: str | None = None) -> int:
    """One turn per stdin line; a line written while a turn sleeps is taken into that turn (steered),
    as Claude Code takes a message sent mid-turn. Exits 1 if a turn failed, once stdin closes."""
    emit({"type": "system", "subtype": "init", "session_id": resume or "fake-session"})
    inbox: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=read_turns, args=(inbox,), daemon=True).start()
    failed = False
    while (message := inbox.get()) is not None:
        log("turn", engine=engine, prompt=message)
        if engine in (dict(DIRECTIVE.findall(message)).get("rate_limit") or "").split(","):
            finish(engine, "", limited=True)
            continue
        if "child" in dict(DIRECTIVE.findall(message)):  # started before the turn's sleep, as headless
            start_child()
        steered, closed = steer_while_sleeping(engine, message, inbox)
        task = bool(os.environ.get("ITACHI_TASK_ID"))  # a session's turn is answered with its echo alone
        if task or DIRECTIVE.search(message):
            failed = not do_work(engine, message, sleep=False, child=False) or failed
        if "fail" not in message:
            done = f"Done by the fake {engine}." if task else f"echo: {message}"
            answer = " | ".join([done, *(f"steered: {s}" for s in steered)])
            say(engine, answer)
            finish(engine, answer)
        if closed:
            break
    return 1 if failed else 0


def read_turns(inbox: queue.Queue[str | None]) -> None:
    for line in sys.stdin:
        inbox.put(json.loads(line)["message"]["content"])
    inbox.put(None)


def steer_while_sleeping(engine: str, message: str, inbox: queue.Queue[str | None]) -> tuple[list[str], bool]:
    """Sleep the turn's [fake:sleep=S], taking in the lines that arrive meanwhile; (them, stdin closed)."""
    deadline = time.monotonic() + sleep_seconds(dict(DIRECTIVE.findall(message)))
    steered: list[str] = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = inbox.get(timeout=min(left, 0.1))
        except queue.Empty:
            continue
        if line is None:
            return steered, True
        log("steered", engine=engine, prompt=line)
        say(engine, f"steered: {line}")
        steered.append(line)
    return steered, False


def resumed(engine: str, argv: list[str]) -> str | None:
    """The session id a run resumes (`codex exec ... resume ID`, `--resume ID`), if it does."""
    flag = "resume" if engine == "codex" else "--resume"
    if flag in argv:
        return argv[argv.index(flag) + 1]
    return None


def main(argv: list[str]) -> int:
    engine = "claude"
    if argv[:1] == ["--as"]:
        engine, argv = argv[1], argv[2:]
    if "app-server" in argv or "--experimental-acp" in argv:  # the JSON-RPC modes that ask for approvals
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
        from tests.fakes import fake_engine_rpc

        serve = fake_engine_rpc.serve_codex if engine == "codex" else fake_engine_rpc.serve_acp
        try:
            return serve(DIRECTIVE.findall, log)
        finally:
            log("end", engine=engine)
    resume = resumed(engine, argv)
    prompt = "" if "--input-format" in argv else prompt_of(argv)
    log("start", engine=engine, cwd=os.getcwd(), handoff="## Handoff from" in " ".join(argv), argv=argv,
        env={k: os.environ.get(k) for k in os.environ.get("ITACHI_FAKE_ENGINE_ECHO_ENV", "").split(",") if k},
        resume=resume, prompt=prompt)
    open_transcript(engine)
    try:
        if "--input-format" in argv:
            return interactive(engine, resume)
        return run_task(engine, prompt, resume)
    finally:
        log("end", engine=engine)


def started(engine: str, session: str) -> None:
    """The first lines of a headless run, as each CLI prints them."""
    if engine == "codex":
        emit({"type": "thread.started", "thread_id": session})
        emit({"type": "turn.started"})
        emit({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                                                 "text": "**Reading the request**"}})
    elif engine == "gemini":
        emit({"type": "init", "timestamp": "2026-01-01T00:00:00.000Z", "session_id": session,
              "model": "gemini-2.5-pro"})
    else:
        emit({"type": "system", "subtype": "init", "session_id": session})


def run_task(engine: str, prompt: str, resume: str | None = None) -> int:
    session = resume or ("fake-thread" if engine == "codex" else "fake-session")
    started(engine, session)
    if engine == "gemini":
        emit({"type": "message", "timestamp": "2026-01-01T00:00:00.100Z", "role": "user", "content": prompt})
    if resume:
        say(engine, f"Resumed {session}")
    if engine in (dict(DIRECTIVE.findall(prompt)).get("rate_limit") or "").split(","):
        say(engine, f"Working on: {prompt.splitlines()[0][:80] if prompt else ''}")
        finish(engine, "", limited=True)
        return 1
    if not do_work(engine, prompt, sleep=True):
        return 1
    finish(engine, f"Done by the fake {engine}.")
    return 0


def sleep_seconds(directives: dict[str, str]) -> float:
    seconds = float(directives.get("sleep") or 0)
    if directives.get("sleep_once") and os.environ.get("ITACHI_TASK_ATTEMPT", "1") == "1":
        seconds = float(directives["sleep_once"])
    return seconds


def start_child() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    log("child", child_pid=child.pid)


def do_work(engine: str, prompt: str, *, sleep: bool, child: bool = True) -> bool:
    """What the prompt's directives ask (a [fake:fail] reports its error result); False if it failed."""
    directives = {name: value for name, value in DIRECTIVE.findall(prompt)}
    say(engine, f"Working on: {prompt.splitlines()[0][:80] if prompt else ''}")
    if "child" in directives and child:
        start_child()
    if sleep:
        time.sleep(sleep_seconds(directives))
    if directives.get("write"):
        target = Path(directives["write"])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"written by the fake {engine}\n")
        wrote(engine, directives["write"])
    if directives.get("spend") and engine == "claude":
        spend(float(directives["spend"]))
    if "fail" in directives:
        finish(engine, "the fake engine failed", error=True)
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
