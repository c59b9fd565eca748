"""Settings read their secrets from Secrets Manager (moto's implementation) through Powertools."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.secrets import fetch_secrets
from chalicelib.kernel.settings import Settings

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
