"""Machine queue credentials without AWS: what the session policy allows, where the deployment
vends none, and how the agent then keeps its own credentials."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.queue_credentials import vended_credentials
from chalicelib.bootstrap import build
from chalicelib.kernel.errors import NotFound
from chalicelib.kernel.settings import Settings
from chalicelib.tasks.domain.queue_credentials import session_name, session_policy

ARN = "arn:aws:sqs:eu-west-1:123456789012:itachi-prod-machine-laptop"


def test_the_session_policy_allows_the_agents_reading_on_its_one_queue_and_nothing_else() -> None:
    [statement] = session_policy(ARN)["Statement"]
    actions = statement["Action"]
    assert statement["Effect"] == "Allow" and statement["Resource"] == ARN
    assert {"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"} <= set(actions)
    writes = ("sqs:Send", "sqs:SetQueue", "sqs:Purge", "sqs:DeleteQueue", "sqs:CreateQueue", "sqs:Tag")
    assert all(a.startswith("sqs:") and not a.startswith(writes) and "*" not in a for a in actions)
    assert len(session_name("x" * 40)) <= 64  # STS's limit on a role session's name


def test_a_deployment_without_a_machine_role_vends_nothing_and_the_agent_keeps_its_own_credentials(
        tmp_path: Path) -> None:
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path)}).replace(sqs_endpoint_url=None,
                                                                          machine_role_arn=None)
    with pytest.raises(NotFound, match="vends no machine credentials"):
        build(settings).machine_credentials.vend("laptop")
    assert vended_credentials(lambda: None) is None  # the API's 404: boto3's own chain applies
