"""The machine queue's AWS credentials, vended by the API and refreshed before they expire.

On AWS the agent asks `POST /api/machines/{id}/credentials` for an hour of credentials that
reach its own queue only, and its SQS client signs with them through botocore's refreshable
credentials: from `REFRESH_BEFORE_S` before they expire, the next SQS call fetches new ones first
(a failed fetch then keeps the current ones), and from `MUST_REFRESH_BEFORE_S` a call waits for new
ones (a failed fetch fails the call, which the poll loop retries). A deployment that vends none
(404) leaves the agent on boto3's default credential chain, as before.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from chalicelib.contracts.agent_api import QueueCredentialsAnswer
from chalicelib.contracts.api_transport import ApiClient, ApiError

REFRESH_BEFORE_S = 15 * 60
MUST_REFRESH_BEFORE_S = 5 * 60
METHOD = "itachi-api"

Clock = Callable[[], datetime.datetime]  # an aware datetime, now
Fetch = Callable[[], QueueCredentialsAnswer | None]


def api_fetch(api: ApiClient, machine_id: str) -> Fetch:
    """Ask the API for the machine's queue credentials; None if this deployment vends none."""

    def fetch() -> QueueCredentialsAnswer | None:
        try:
            return QueueCredentialsAnswer.from_body(api.post(f"/api/machines/{machine_id}/credentials"))
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise

    return fetch


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def vended_credentials(fetch: Fetch, *, clock: Clock = _now) -> Any | None:
    """botocore credentials that refresh themselves through `fetch`; None if it vends none."""
    from botocore.credentials import RefreshableCredentials

    first = fetch()
    if first is None:
        return None

    def refresh() -> dict[str, str]:
        answer = fetch()
        if answer is None:
            raise RuntimeError("the API stopped vending queue credentials")
        return _metadata(answer)

    data = _metadata(first)
    return RefreshableCredentials(data["access_key"], data["secret_key"], data["token"],
                                  datetime.datetime.fromisoformat(data["expiry_time"]), refresh, METHOD,
                                  time_fetcher=clock, advisory_timeout=REFRESH_BEFORE_S,
                                  mandatory_timeout=MUST_REFRESH_BEFORE_S)


def session_with(credentials: Any, region: str) -> Any:
    """A boto3 session whose clients sign with `credentials` (and nothing else of the machine's)."""
    import boto3
    import botocore.session
    from botocore.credentials import CredentialProvider

    class Vended(CredentialProvider):  # type: ignore[misc]
        METHOD = METHOD

        def load(self) -> Any:
            return credentials

    core = botocore.session.Session()
    core.get_component("credential_provider").insert_before("env", Vended())
    return boto3.session.Session(botocore_session=core, region_name=region)


def _metadata(answer: QueueCredentialsAnswer) -> dict[str, str]:
    return {"access_key": answer.access_key_id, "secret_key": answer.secret_access_key,
            "token": answer.session_token, "expiry_time": answer.expires_at}
