"""Settings read their secrets from Secrets Manager (moto's implementation) through Powertools."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from chalicelib.auth.domain.api_keys import DEPLOYMENT_ADMIN, ApiKey
from chalicelib.auth.services.authenticator import Authenticator
from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.secrets import fetch_secrets
from chalicelib.kernel.settings import Settings
from chalicelib.kernel.unit_of_work import InMemoryUnitOfWork
from chalicelib.wiring.auth import ADMIN_KEYS_REFRESH_S, admin_keys

pytestmark = pytest.mark.integration


@pytest.fixture
def secretsmanager(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    from aws_lambda_powertools.utilities.parameters import base

    base.DEFAULT_PROVIDERS.clear()  # a provider built outside moto would talk to AWS
    with mock_aws():
        yield boto3.client("secretsmanager", region_name="us-east-1")
    base.DEFAULT_PROVIDERS.clear()


def test_settings_are_filled_from_secrets_named_by_name_or_arn(secretsmanager, tmp_path) -> None:
    client = secretsmanager
    client.create_secret(Name="itachi/dev/api-keys", SecretString="k-one,k-two")  # type: ignore[attr-defined]
    token = client.create_secret(Name="itachi/dev/bot", SecretString="123:abc")  # type: ignore[attr-defined]
    creds = {"username": "app", "password": "p@ss", "host": "db.internal", "port": 5432, "dbname": "itachi"}
    client.create_secret(Name="itachi/dev/db", SecretString=json.dumps(creds))  # type: ignore[attr-defined]

    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path),
                                  "ITACHI_API_KEYS_SECRET_ID": "itachi/dev/api-keys",
                                  "TELEGRAM_BOT_TOKEN_SECRET_ID": token["ARN"],
                                  "DATABASE_URL_SECRET_ID": "itachi/dev/db"})

    assert settings.api_keys == ("k-one", "k-two")
    assert settings.telegram_bot_token == "123:abc"
    assert settings.database_url == "postgresql://app:p%40ss@db.internal:5432/itachi?sslmode=require"


def test_a_missing_secret_is_a_configuration_error_naming_it(secretsmanager) -> None:
    secretsmanager.create_secret(Name="present", SecretString="x")  # type: ignore[attr-defined]

    with pytest.raises(ConfigurationError, match="absent"):
        fetch_secrets(["present", "absent"])


KEYS = "itachi/dev/api-keys"


class _NoStoredKeys(InMemoryUnitOfWork):
    """The key store of a deployment that has only its configured admin keys."""

    class _Keys:
        def add(self, key: ApiKey, key_hash: bytes) -> ApiKey:
            raise AssertionError("nothing is stored here")

        def live_by_hash(self, key_hash: bytes) -> ApiKey | None:
            return None

        def listing(self, *, include_revoked: bool) -> list[ApiKey]:
            return []

        def lock_machine(self, machine_id: str) -> list[ApiKey]:
            return []

        def revoke(self, name: str) -> ApiKey | None:
            return None

    def __init__(self) -> None:
        super().__init__()
        self.keys = self._Keys()


def test_a_rotated_admin_key_is_taken_and_the_old_one_refused_without_a_redeploy(
        secretsmanager, tmp_path) -> None:
    secretsmanager.create_secret(Name=KEYS, SecretString="old-key")  # type: ignore[attr-defined]
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_API_KEYS_SECRET_ID": KEYS})
    now = [0.0]
    auth = Authenticator(_NoStoredKeys, admin_keys(settings, clock=lambda: now[0]))
    assert auth.principal("old-key") == DEPLOYMENT_ADMIN

    # Rotation: the new key beside the old one while the clients move, then the new one alone.
    secretsmanager.put_secret_value(SecretId=KEYS, SecretString="new-key,old-key")  # type: ignore[attr-defined]
    assert auth.principal("new-key") is None  # read again only after the refresh interval
    now[0] += ADMIN_KEYS_REFRESH_S + 1
    assert auth.principal("new-key") == DEPLOYMENT_ADMIN and auth.principal("old-key") == DEPLOYMENT_ADMIN
    secretsmanager.put_secret_value(SecretId=KEYS, SecretString="new-key")  # type: ignore[attr-defined]
    now[0] += ADMIN_KEYS_REFRESH_S + 1
    assert auth.principal("old-key") is None and auth.principal("new-key") == DEPLOYMENT_ADMIN


def test_an_unreadable_secret_keeps_the_admin_keys_last_read(secretsmanager, tmp_path) -> None:
    secretsmanager.create_secret(Name=KEYS, SecretString="the-key")  # type: ignore[attr-defined]
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_API_KEYS_SECRET_ID": KEYS})
    now = [0.0]
    auth = Authenticator(_NoStoredKeys, admin_keys(settings, clock=lambda: now[0]))
    secretsmanager.delete_secret(SecretId=KEYS, ForceDeleteWithoutRecovery=True)  # type: ignore[attr-defined]
    now[0] += ADMIN_KEYS_REFRESH_S + 1
    assert auth.principal("the-key") == DEPLOYMENT_ADMIN
