"""moto's server, with AWS's rule for session policies that moto leaves out.

`python -m tests.support.moto_session_policies -H 127.0.0.1 -p PORT` runs moto's own server.
moto enforces IAM once `POST /moto-api/reset-auth` (body `0`) turns it on: signatures, the
caller's identity policies (an assumed role's are its role's), resource ARNs and a role's trust
policy. It keeps the session policy an `sts:AssumeRole` call passed but never evaluates it
(moto/iam/access_control.py, `AssumedRoleAccessKey.collect_policies`). AWS grants a session what
both its role's policies and its session policy allow; this adds the second half with moto's own
policy evaluator, so a request the session policy does not allow is refused as AWS refuses it.
Nothing else of moto changes.
"""

from __future__ import annotations

import sys
from typing import Any

from moto.iam import access_control
from moto.server import main
from moto.sts.models import sts_backends

_role_and_trust_check = access_control.IAMRequestBase.check_action_permitted


def _session_policy(key: Any) -> str | None:
    for assumed in sts_backends[key.account_id][key.partition].assumed_roles:
        if assumed.access_key_id == key._access_key_id:
            return assumed.policy  # type: ignore[no-any-return]
    return None


def check_action_permitted(self: Any, resource: str) -> None:
    _role_and_trust_check(self, resource)  # refuses what the role's policies or trust do not allow
    key = self._access_key
    if not isinstance(key, access_control.AssumedRoleAccessKey) or self._action == "sts:GetCallerIdentity":
        return
    policy = _session_policy(key)
    if policy and access_control.IAMPolicy(policy).is_action_permitted(
            self._action, resource) is not access_control.PermissionResult.PERMITTED:
        self._raise_access_denied()


access_control.IAMRequestBase.check_action_permitted = check_action_permitted  # type: ignore[method-assign]

if __name__ == "__main__":
    main(sys.argv[1:])
