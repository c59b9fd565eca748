"""Machine queue credentials vended by the API: through moto's STS and SQS, a machine's
credentials read its own queue and are refused on another's; a machine key asks for its own
machine only; the agent refreshes them before they expire.

The refusal test runs a moto server of its own with IAM enforcement on (`/moto-api/reset-auth`),
set up as the template sets up AWS: an API principal allowed to assume the machine role, the
machine role with the template's own policy and trust. moto does not evaluate session policies;
that server adds AWS's rule for them (tests/support/moto_session_policies.py), and a control
test shows the role alone would reach every machine queue.
"""

from __future__ import annotations

import json
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from agent.queue_credentials import REFRESH_BEFORE_S, api_fetch, session_with, vended_credentials
from chalicelib.bootstrap import Container
from chalicelib.contracts.agent_api import QueueCredentialsAnswer
from chalicelib.contracts.api_transport import ApiClient, ApiError
from chalicelib.contracts.local_home import ClientConfig
from chalicelib.kernel.queue_table import MACHINE_QUEUE
from chalicelib.kernel.queues import SqsQueue, SqsQueues
from chalicelib.tasks.adapters.sts_queue_credentials import StsQueueCredentials
from chalicelib.tasks.domain.queue_credentials import LIFETIME_S
from chalicelib.tasks.services.machine_credentials import MachineCredentialVendor
from infra.aws.agents import machine_role_policy
from infra.aws.iam import queue_arn
from infra.local.processes import free_port, http_ok, spawn, wait_until
from tests.conftest import RunningApi
from tests.support.agent_harness import AgentHarness, harness, make_repo
from tests.support.orchestration import heartbeat, new_task

REGION = "us-east-1"
LOCAL = {"aws_access_key_id": "local", "aws_secret_access_key": "local", "region_name": REGION}


def client_for(url: str, key: str) -> ApiClient:
    return ApiClient(ClientConfig(Path("/nonexistent"), url, key), timeout_s=60)


@pytest.fixture
def admin(api: RunningApi) -> ApiClient:
    return client_for(api.url, api.key)


def machine_client(api: RunningApi, admin: ApiClient, machine_id: str) -> ApiClient:
    created = admin.post("/api/keys", {"name": f"{machine_id}-agent", "kind": "machine",
                                       "machine_id": machine_id})
    return client_for(api.url, created["key"])


def status_of(call: Callable[[], Any]) -> int:
    with pytest.raises(ApiError) as refused:
        call()
    return refused.value.status


def test_a_machine_key_gets_an_hour_of_credentials_for_its_own_machine_and_403_for_another(
        api: RunningApi, admin: ApiClient) -> None:
    m1, m2 = machine_client(api, admin, "m1"), machine_client(api, admin, "m2")
    heartbeat(m1, "m1")
    heartbeat(m2, "m2")
    before = datetime.now(UTC)
    answer = QueueCredentialsAnswer.from_body(m1.post("/api/machines/m1/credentials"))
    assert answer.access_key_id and answer.secret_access_key and answer.session_token
    expires = datetime.fromisoformat(answer.expires_at)
    lifetime = timedelta(seconds=LIFETIME_S)
    assert before + lifetime - timedelta(minutes=1) <= expires <= before + lifetime + timedelta(minutes=1)

    assert status_of(lambda: m2.post("/api/machines/m1/credentials")) == 403
    assert status_of(lambda: m1.post("/api/machines/m2/credentials")) == 403
    client = client_for(api.url, admin.post("/api/keys", {"name": "hooks", "kind": "client"})["key"])
    assert status_of(lambda: client.post("/api/machines/m1/credentials")) == 403


def test_credentials_are_404_before_the_machines_first_heartbeat_and_400_for_an_id_no_queue_can_have(
        api: RunningApi, admin: ApiClient) -> None:
    m3 = machine_client(api, admin, "m3")
    assert status_of(lambda: m3.post("/api/machines/m3/credentials")) == 404
    assert status_of(lambda: admin.post("/api/machines/x-dlq/credentials")) == 400
    heartbeat(m3, "m3")
    assert m3.post("/api/machines/m3/credentials")["access_key_id"]


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def test_the_agent_refreshes_its_queue_credentials_before_they_expire(
        api: RunningApi, admin: ApiClient, moto_endpoint: str) -> None:
    m1 = machine_client(api, admin, "m1")
    queue_url = heartbeat(m1, "m1")["queue_url"]
    fetched: list[QueueCredentialsAnswer] = []
    fetch = api_fetch(m1, "m1")

    def counting_fetch() -> QueueCredentialsAnswer | None:
        answer = fetch()
        assert answer is not None
        fetched.append(answer)
        return answer

    clock = FakeClock()
    credentials = vended_credentials(counting_fetch, clock=clock)
    assert credentials is not None
    queue = SqsQueue.at(queue_url, region=REGION, endpoint_url=moto_endpoint,
                        session=session_with(credentials, REGION))
    expires = datetime.fromisoformat(fetched[0].expires_at)

    queue.receive(wait_s=0)
    clock.now = expires - timedelta(seconds=REFRESH_BEFORE_S + 60)
    queue.receive(wait_s=0)
    assert len(fetched) == 1  # still well before expiry: no new credentials
    assert credentials.get_frozen_credentials().access_key == fetched[0].access_key_id

    clock.now = expires - timedelta(seconds=REFRESH_BEFORE_S - 60)
    queue.receive(wait_s=0)  # the call fetches new credentials first, and signs with them
    assert len(fetched) == 2 and clock.now < expires
    # The new ones were issued (for an hour) at the API's real time: look at them from then.
    clock.now = datetime.fromisoformat(fetched[1].expires_at) - timedelta(seconds=LIFETIME_S)
    signing = credentials.get_frozen_credentials().access_key
    assert signing == fetched[1].access_key_id != fetched[0].access_key_id
    assert len(fetched) == 2


@pytest.fixture
def h(api: RunningApi, container: Container, tmp_path: Path) -> Iterator[AgentHarness]:
    yield from harness(tmp_path, api.url, api.key, client_for(api.url, api.key), container.queues)


def test_an_agent_on_aws_with_no_aws_credentials_of_its_own_runs_tasks_with_the_vended_ones(
        h: AgentHarness, moto_endpoint: str, tmp_path: Path) -> None:
    # AWS mode: the heartbeat's moto endpoint is ignored; boto3 reaches moto through its own
    # AWS_ENDPOINT_URL, and has no credentials but the ones the API vends.
    nothing = str(tmp_path / "no-aws-config")
    h.start_agent("m1", where="--aws", AWS_ENDPOINT_URL=moto_endpoint, AWS_ACCESS_KEY_ID="",
                  AWS_SECRET_ACCESS_KEY="", AWS_SESSION_TOKEN="", AWS_CONFIG_FILE=nothing,
                  AWS_SHARED_CREDENTIALS_FILE=nothing, AWS_EC2_METADATA_DISABLED="true")
    task = new_task(h.client, "say hello", repo=str(make_repo(tmp_path / "repo")), machine="m1")

    assert h.wait_status(task["id"])["status"] == "completed"


# --- IAM enforced: a moto server of this module's own ------------------------------------------------

@dataclass
class EnforcingAws:
    endpoint: str
    prefix: str
    role_arn: str
    api_session: Any  # the API's principal: may assume the machine role, look machine queues up
    queue_urls: dict[str, str]

    def vendor(self) -> MachineCredentialVendor:
        where = {"endpoint_url": self.endpoint, "session": self.api_session}
        queues = SqsQueues(prefix=self.prefix, region=REGION, sign_with_session=True, **where)
        return MachineCredentialVendor(StsQueueCredentials(self.role_arn, queues, region=REGION, **where))

    def queue(self, machine_id: str, session: Any) -> SqsQueue:
        return SqsQueue.at(self.queue_urls[machine_id], region=REGION, endpoint_url=self.endpoint,
                           session=session)


def _resolve(node: Any) -> Any:
    """The template's `Fn::Sub` ARNs as moto's account and region spell them."""
    if isinstance(node, dict) and set(node) == {"Fn::Sub"}:
        return (node["Fn::Sub"].replace("${AWS::Partition}", "aws").replace("${AWS::Region}", REGION)
                .replace("${AWS::AccountId}", "123456789012"))
    if isinstance(node, dict):
        return {k: _resolve(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(v) for v in node]
    return node


@pytest.fixture(scope="module")
def enforcing_aws() -> Iterator[EnforcingAws]:
    port = free_port()
    proc = spawn([sys.executable, "-m", "tests.support.moto_session_policies", "-H", "127.0.0.1",
                  "-p", str(port)])
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: http_ok(f"{endpoint}/moto-api/"), timeout_s=60, what="moto server")
        yield _set_up(endpoint)
    finally:
        proc.terminate()
        proc.wait(10)


def _set_up(endpoint: str) -> EnforcingAws:
    prefix = "itachi-test"
    iam = boto3.client("iam", endpoint_url=endpoint, **LOCAL)
    user = iam.create_user(UserName="itachi-api")["User"]
    key = iam.create_access_key(UserName="itachi-api")["AccessKey"]
    machine_queues = _resolve(queue_arn(prefix, "machine-*"))
    trust = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": user["Arn"]}, "Action": "sts:AssumeRole"}]}
    role = iam.create_role(RoleName="machine-queue", Path="/itachi/itachi-test/machines/",
                           AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(RoleName="machine-queue", PolicyName="itachi-machine-queues",
                        PolicyDocument=json.dumps(machine_role_policy(machine_queues)))
    iam.put_user_policy(UserName="itachi-api", PolicyName="api", PolicyDocument=json.dumps({
        "Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": role["Role"]["Arn"]},
            {"Effect": "Allow", "Action": "sqs:GetQueueAttributes", "Resource": machine_queues},
            # moto checks GetQueueUrl against "*": the call names a queue, not a URL it resolves
            {"Effect": "Allow", "Action": "sqs:GetQueueUrl", "Resource": "*"}]}))
    queues = SqsQueues(prefix=prefix, region=REGION, endpoint_url=endpoint)
    urls = {m: queues.ensure(MACHINE_QUEUE, key=f"machine-{m}") for m in ("a", "b")}
    for url in urls.values():
        queues.client.send_message(QueueUrl=url, MessageBody="{}")
    request = urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=b"0", method="POST",
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=10):  # from here on, every request is checked
        pass
    api_session = boto3.session.Session(aws_access_key_id=key["AccessKeyId"],
                                        aws_secret_access_key=key["SecretAccessKey"], region_name=REGION)
    return EnforcingAws(endpoint, prefix, role["Role"]["Arn"], api_session, urls)


def _agent_session(aws: EnforcingAws, machine_id: str) -> Any:
    creds = aws.vendor().vend(machine_id)
    answer = QueueCredentialsAnswer(creds.access_key_id, creds.secret_access_key, creds.session_token,
                                    creds.expires_at.isoformat())
    return session_with(vended_credentials(lambda: answer), REGION)


def _refused(call: Callable[[], Any]) -> str:
    """The error AWS answers (moto answers SQS errors in XML, which botocore leaves in the message)."""
    with pytest.raises(ClientError) as refused:
        call()
    return f"{refused.value.response['Error'].get('Code')} {refused.value}"


def test_a_machines_credentials_read_its_own_queue_and_are_refused_on_anothers(
        enforcing_aws: EnforcingAws) -> None:
    session = _agent_session(enforcing_aws, "a")
    own = enforcing_aws.queue("a", session)
    [message] = own.receive(wait_s=0, visibility_timeout_s=30)
    own.extend(message.receipt_handle, 60)
    own.delete(message.receipt_handle)
    assert own.depth() == 0

    other = enforcing_aws.queue("b", session)
    assert "AccessDenied" in _refused(lambda: other.receive(wait_s=0))
    assert "AccessDenied" in _refused(lambda: other.depth())
    assert "AccessDenied" in _refused(lambda: own.send({"task_id": "forged"}))  # reading only


def test_the_role_alone_would_reach_every_machine_queue_so_the_session_policy_is_what_limits(
        enforcing_aws: EnforcingAws) -> None:
    sts = enforcing_aws.api_session.client("sts", endpoint_url=enforcing_aws.endpoint)
    unscoped = sts.assume_role(RoleArn=enforcing_aws.role_arn, RoleSessionName="control")["Credentials"]
    session = boto3.session.Session(aws_access_key_id=unscoped["AccessKeyId"],
                                    aws_secret_access_key=unscoped["SecretAccessKey"],
                                    aws_session_token=unscoped["SessionToken"], region_name=REGION)
    assert enforcing_aws.queue("b", session).depth() >= 0
    assert "AccessDenied" in _refused(lambda: enforcing_aws.queue("b", session).send({"task_id": "x"}))
    assert "InvalidClientTokenId" in _refused(
        lambda: enforcing_aws.queue("b", boto3.session.Session(**LOCAL)).depth())
