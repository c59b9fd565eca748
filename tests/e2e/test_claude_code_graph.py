# ruff: noqa: F811 (the shared e2e fixtures are imported by name)
"""The real Claude Code CLI with Itachi's hooks: a team instruction stated in one session reaches
the model in the next, through the graph memory (no LLM key: the heuristic builds the graph)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chalicelib.kernel.queue_table import QUEUES
from infra.local.sqs_dispatcher import deliver_batch
from tests.conftest import RunningApi
from tests.e2e.test_claude_code_memory import (  # noqa: F401 (fixtures)
    PROJECT,
    claude,
    eventually,
    hook_env,
    itachi_home,
    repo,
    warm_api,
)
from tests.fakes.fake_anthropic import FakeAnthropic, Reply
from tests.support.claude_cli import run_print

pytestmark = pytest.mark.e2e
INGEST = next(spec for spec in QUEUES if spec.key == "ingest")
RULE = "From now on our team never deploys the billing service on Fridays, releases wait for Monday."
STATED = "team never deploys the billing service on Fridays, releases wait for Monday"


def graph_rules(api: RunningApi) -> list[str]:
    """Drain the ingest queue (the stack's dispatcher does this in `itachi up`); the rules learnt."""
    while deliver_batch(api.container.queues, INGEST, wait_s=1):
        pass
    found = api.container.graph_retrieve.fast(PROJECT, "deploy billing service Fridays")
    return [n.content for n in found.sections.instructions if "Fridays" in n.content]


def test_a_team_instruction_from_one_session_reaches_the_model_in_the_next(
    claude: Path,
    repo: Path,
    itachi_home: Path,
    tmp_path: Path,
    warm_api: RunningApi,
) -> None:
    api = warm_api
    config_dir = tmp_path / "claude-config"
    with FakeAnthropic([Reply.text("Understood: no billing deploys on Fridays.")]) as fake:
        first = run_print(
            claude, RULE, cwd=repo, env=hook_env(fake, config_dir, itachi_home, api.url, api.key)
        )
    assert first.returncode == 0, first.stderr
    (rule,) = eventually(lambda: graph_rules(api), 60, "the instruction in the graph")
    # The rule store keeps the instruction in its own wording (lead-in and full stop dropped).
    assert STATED in rule

    question = "Is it fine if I ship the billing service release this Friday afternoon?"
    # The hook has 0.5 s and fails open; on a loaded box a first try can miss it (a retry finds the
    # prompt's vector cached). Wait for the context, as for any other condition.
    for _ in range(4):
        with FakeAnthropic([Reply.text("No: the team does not deploy billing on Fridays.")]) as fake:
            env = hook_env(fake, config_dir, itachi_home, api.url, api.key)
            second = run_print(claude, question, cwd=repo, env=env)
            sent = fake.all_request_text()
        assert second.returncode == 0, second.stderr
        injected = [chunk[:8000] for chunk in sent.split("hook additional context: ")[1:]]
        graph_blocks = [chunk for chunk in injected if "=== Itachi Graph Memory ===" in chunk]
        if graph_blocks:
            break
    # The instruction reaches the model once: through the session's rules or the graph's block, the
    # one rule store deciding which (the graph block leaves out a rule another block carries).
    carried = [chunk for chunk in injected if STATED in chunk]
    assert graph_blocks and len(carried) == 1, injected
