"""The agent's answers to Claude's permission questions in plan mode (`agent/engines/plan_gate.py`): the
plan comes from the assistant's tool_use, Approve plan leaves plan mode, Revise sends the words
back, no answer denies, and nothing else is allowed while the plan is not approved."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.engines.approval_relay import ApprovalRelay, Verdict
from agent.engines.definitions import engine_for
from agent.engines.plan_gate import NO_ANSWER, NOT_APPROVED, PlanGate, gates_plan
from agent.tasks.engine_process import resume_argv
from chalicelib.contracts.api_transport import ApiClient
from chalicelib.contracts.local_home import ClientConfig


@dataclass
class ScriptedRelay(ApprovalRelay):
    """A relay whose person answers from a script: (approved, reason) per plan, a verdict per tool."""

    plans: list[tuple[bool, str]] = field(default_factory=list)
    asked: list[tuple[str, str]] = field(default_factory=list)

    def ask_plan(self, plan: str) -> tuple[bool, str]:
        self.asked.append(("ExitPlanMode", plan))
        return self.plans.pop(0)

    def ask(self, tool: str, summary: str) -> Verdict:
        self.asked.append((tool, summary))
        return "allow"


def relay(*plans: tuple[bool, str]) -> ScriptedRelay:
    unused = ApiClient(ClientConfig(Path("/nonexistent"), "http://127.0.0.1:9", "k"))  # the script answers
    return ScriptedRelay(unused, "task-1", "app", 42, plans=list(plans))


def assistant_plan(tool_use_id: str, plan: str) -> str:
    return json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "id": tool_use_id, "name": "ExitPlanMode", "input": {"plan": plan}}]}})


def can_use_tool(request_id: str, tool: str, tool_use_id: str, tool_input: dict[str, Any]) -> str:
    return json.dumps({"type": "control_request", "request_id": request_id, "request": {
        "subtype": "can_use_tool", "tool_name": tool, "input": tool_input, "tool_use_id": tool_use_id}})


def answers(gate: PlanGate, *lines: str) -> list[dict[str, Any]]:
    written: list[str] = []

    def write(text: str) -> bool:
        written.append(text)
        return True

    for line in lines:
        gate.see(line, write)
    return [json.loads(w)["response"] for w in written]


def test_a_revised_plan_goes_back_with_the_words_and_an_approved_one_leaves_plan_mode() -> None:
    person = relay((False, "use notes.md"), (True, ""))
    gate = PlanGate(person)

    got = answers(gate, assistant_plan("t1", "PLAN-ONE"), can_use_tool("r1", "ExitPlanMode", "t1", {}),
                  can_use_tool("r2", "Write", "t2", {"file_path": "plan.txt"}),
                  assistant_plan("t3", "PLAN-TWO"), can_use_tool("r3", "ExitPlanMode", "t3", {}),
                  can_use_tool("r4", "Bash", "t4", {"command": "make test"}))

    assert [a["request_id"] for a in got] == ["r1", "r2", "r3", "r4"]
    decisions = [a["response"] for a in got]
    assert decisions[0]["behavior"] == "deny" and "use notes.md" in decisions[0]["message"]
    assert decisions[1] == {"behavior": "deny", "message": NOT_APPROVED}
    assert decisions[2]["behavior"] == "allow"
    assert decisions[2]["updatedPermissions"][0]["mode"] == "acceptEdits"
    assert decisions[3] == {"behavior": "allow", "updatedInput": {"command": "make test"}}
    assert person.asked == [("ExitPlanMode", "PLAN-ONE"), ("ExitPlanMode", "PLAN-TWO"), ("Bash", "make test")]


def test_a_plan_nobody_answers_in_time_is_not_approved() -> None:
    got = answers(PlanGate(relay((False, ""))), assistant_plan("t1", "P"),
                  can_use_tool("r1", "ExitPlanMode", "t1", {}))

    assert got[0]["response"] == {"behavior": "deny", "message": NO_ANSWER}


def test_only_a_claude_task_in_plan_mode_with_a_topic_runs_with_the_prompt_tool() -> None:
    claude, person = engine_for("claude", {}), relay()

    assert gates_plan("claude", {"permission_mode": "plan"}, person)
    assert not gates_plan("claude", {"permission_mode": "plan"}, None)
    assert not gates_plan("codex", {"permission_mode": "plan"}, person)
    assert not gates_plan("claude", {}, person)
    argv = claude.session_argv({"permission_mode": "plan"}, prompt_tool=True)
    assert argv[argv.index("--permission-mode") + 1] == "plan"
    assert argv[argv.index("--permission-prompt-tool") + 1] == "stdio"
    assert "--permission-prompt-tool" not in claude.session_argv({"permission_mode": "plan"})


def flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_a_later_process_of_a_plan_mode_task_stays_in_plan_mode_until_its_plan_is_approved() -> None:
    claude, gate = engine_for("claude", {}), PlanGate(relay((True, "")))
    options = {"permission_mode": "plan", "model": "opus"}

    before = resume_argv(claude, options, "and the README", "claude-session-1", gate)
    answers(gate, assistant_plan("t1", "PLAN"), can_use_tool("r1", "ExitPlanMode", "t1", {}))
    after = resume_argv(claude, options, "and the README", "claude-session-1", gate)

    assert (flag(before, "--permission-mode"), flag(after, "--permission-mode")) == ("plan", "acceptEdits")
    for argv in (before, after):  # the message goes in as a stream-json turn the gate can answer around
        assert flag(argv, "--resume") == "claude-session-1" and flag(argv, "--model") == "opus"
        assert flag(argv, "--input-format") == "stream-json"
        assert flag(argv, "--permission-prompt-tool") == "stdio"
        assert "and the README" not in argv


def test_a_later_process_of_a_read_only_codex_task_stays_read_only() -> None:
    codex = engine_for("codex", {})
    argv = resume_argv(codex, {"permission_mode": "plan"}, "and the README", "thread-1", None)

    assert flag(argv, "--sandbox") == "read-only" and "--full-auto" not in argv
    assert argv[-3:] == ["resume", "thread-1", "and the README"]
