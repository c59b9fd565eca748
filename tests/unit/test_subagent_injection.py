"""Which hook calls are a subagent's, what the setting allows, and the delegation prompt read back
from a transcript written as the real CLI writes it."""

from __future__ import annotations

import json
from pathlib import Path

from hooks.subagent_injection import delegation_prompt, is_subagent, mode


def test_the_users_prompt_is_not_a_subagents_and_a_task_notification_or_subagent_start_is() -> None:
    user = {"hook_event_name": "UserPromptSubmit", "prompt": "How do we deploy the notes service?"}
    assert not is_subagent(user)
    assert is_subagent({**user, "prompt": "<task-notification>\n<task-id>a9e1</task-id>..."})
    assert is_subagent({"hook_event_name": "SubagentStart", "agent_id": "a9e1", "agent_type": "Explore"})
    assert is_subagent({**user, "agent_id": "a9e1"})


def test_the_setting_defaults_to_rules_and_unknown_values_fall_back_to_it() -> None:
    assert mode({}) == "rules"
    assert mode({"ITACHI_SUBAGENT_INJECTION": "FULL"}) == "full"
    assert mode({"ITACHI_SUBAGENT_INJECTION": " off "}) == "off"
    assert mode({"ITACHI_SUBAGENT_INJECTION": "everything"}) == "rules"


def test_the_delegation_prompt_is_the_last_agent_calls(tmp_path: Path) -> None:
    def call(name: str, prompt: str) -> str:
        return json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": name, "input": {"prompt": prompt}}]}})

    transcript = tmp_path / "session.jsonl"
    transcript.write_text("\n".join([call("Agent", "first look"), "not json", call("Bash", "ls"),
                                     call("Task", "then report the embeddings"),
                                     json.dumps({"type": "user", "message": {"content": "ok"}})]) + "\n")
    assert delegation_prompt(str(transcript)) == "then report the embeddings"
    assert delegation_prompt(str(tmp_path / "missing.jsonl")) == ""
