"""Secrets named by VAR_SECRET_ID fill the settings in production; local variables win."""

from __future__ import annotations

import json

import pytest

from chalicelib.kernel.errors import ConfigurationError
from chalicelib.kernel.secrets import resolve_secret_env, secret_references
from chalicelib.kernel.settings import Settings


class FakeSecretStore:
    def __init__(self, values: dict[str, str]) -> None:
        self.values = values
        self.calls: list[list[str]] = []

    def __call__(self, ids: list[str]) -> dict[str, str]:
        self.calls.append(ids)
        return {i: self.values[i] for i in ids}


RDS_CREDS = json.dumps({"username": "itachi", "password": "p@ss/word", "host": "db.internal",
                        "port": 5432, "dbname": "itachi"})


def test_environment_without_secret_ids_is_returned_untouched() -> None:
    env = {"ITACHI_STAGE": "local"}
    store = FakeSecretStore({})
    assert resolve_secret_env(env, store) is env
    assert store.calls == []


def test_all_referenced_secrets_are_read_in_one_call() -> None:
    store = FakeSecretStore({"bot": "123:abc", "hook": "s3cret", "keys": "k1,k2"})
    env = resolve_secret_env({"TELEGRAM_BOT_TOKEN_SECRET_ID": "bot",
                              "TELEGRAM_WEBHOOK_SECRET_SECRET_ID": "hook",
                              "ITACHI_API_KEYS_SECRET_ID": "keys"}, store)
    assert len(store.calls) == 1
    assert env["TELEGRAM_BOT_TOKEN"] == "123:abc"
    assert env["TELEGRAM_WEBHOOK_SECRET"] == "s3cret"
    assert env["ITACHI_API_KEYS"] == "k1,k2"


def test_a_variable_set_directly_wins_over_its_secret() -> None:
    refs = secret_references({"OPENAI_API_KEY": "sk-local", "OPENAI_API_KEY_SECRET_ID": "openai"})
    assert refs == {}


def test_placeholder_secret_leaves_the_feature_off() -> None:
    env = resolve_secret_env({"OPENAI_API_KEY_SECRET_ID": "openai"}, FakeSecretStore({"openai": "unset"}))
    assert env["OPENAI_API_KEY"] == ""


def test_database_credentials_become_a_tls_url_through_the_proxy_host() -> None:
    env = resolve_secret_env({"DATABASE_URL_SECRET_ID": "db", "DATABASE_HOST": "proxy.internal"},
                             FakeSecretStore({"db": RDS_CREDS}))
    assert env["DATABASE_URL"] == "postgresql://itachi:p%40ss%2Fword@proxy.internal:5432/itachi?sslmode=require"


def test_database_secret_without_a_host_anywhere_is_a_clear_error() -> None:
    creds = json.dumps({"username": "u", "password": "p"})
    with pytest.raises(ConfigurationError, match="DATABASE_HOST"):
        resolve_secret_env({"DATABASE_URL_SECRET_ID": "db"}, FakeSecretStore({"db": creds}))


def test_settings_from_env_resolve_secrets_through_the_store() -> None:
    store = FakeSecretStore({"keys": "prod-key", "db": RDS_CREDS})
    env = {"ITACHI_API_KEYS_SECRET_ID": "keys", "DATABASE_URL_SECRET_ID": "db",
           "ITACHI_HOME": "/tmp/itachi", "ITACHI_DB_POOL_MIN": "0", "ITACHI_DB_POOL_MAX": "2"}
    settings = Settings.from_env(resolve_secret_env(env, store))
    assert settings.api_keys == ("prod-key",)
    assert settings.database_url.startswith("postgresql://itachi:")
    assert (settings.db_pool_min, settings.db_pool_max) == (0, 2)
    assert "prod-key" not in repr(settings)


def test_database_url_verifies_the_server_against_the_shipped_ca_bundle_when_told_to() -> None:
    from psycopg.conninfo import conninfo_to_dict

    env = resolve_secret_env({"DATABASE_URL_SECRET_ID": "db", "DATABASE_HOST": "db.internal",
                              "DATABASE_SSLMODE": "verify-full",
                              "DATABASE_SSLROOTCERT": "/var/task/certs/rds-ca-bundle.pem"},
                             FakeSecretStore({"db": RDS_CREDS}))
    params = conninfo_to_dict(env["DATABASE_URL"])
    assert params["sslmode"] == "verify-full"
    assert params["sslrootcert"] == "/var/task/certs/rds-ca-bundle.pem"
    assert params["host"] == "db.internal" and params["password"] == "p@ss/word"
