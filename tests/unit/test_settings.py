"""Settings come from the environment; secrets never appear in repr."""

from __future__ import annotations

import json
from pathlib import Path

from chalicelib.kernel.settings import Settings


def test_api_key_is_read_from_config_json_when_not_in_the_environment(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"api_url": "x", "api_key": "secret-1"}))
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path)})
    assert settings.api_keys == ("secret-1",)


def test_environment_keys_override_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"api_key": "file-key"}))
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_API_KEYS": "a, b"})
    assert settings.api_keys == ("a", "b")


def test_secrets_are_not_in_the_repr(tmp_path: Path) -> None:
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_API_KEY": "hunter2",
                                  "OPENAI_API_KEY": "sk-test-abc", "TELEGRAM_BOT_TOKEN": "1:tok",
                                  "DATABASE_URL": "postgresql://u:pw@h/db"})
    text = repr(settings)
    for secret in ("hunter2", "sk-test-abc", "1:tok", "pw@h"):
        assert secret not in text


def test_an_openai_key_selects_openai_embeddings_unless_pinned(tmp_path: Path) -> None:
    env = {"ITACHI_HOME": str(tmp_path), "OPENAI_API_KEY": "sk-x"}
    assert Settings.from_env(env).embedding_dim == 1536
    pinned = Settings.from_env({**env, "ITACHI_EMBEDDING_PROVIDER": "local"})
    assert (pinned.embedding_provider, pinned.embedding_dim) == ("local", 384)


def test_telegram_allow_list_is_parsed_as_user_ids(tmp_path: Path) -> None:
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "TELEGRAM_ALLOWED_USERS": "1, 22"})
    assert settings.telegram_allowed_users == (1, 22)


def test_task_timing_comes_from_the_one_settings_object(tmp_path: Path) -> None:
    from chalicelib.tasks.services.task_policy import TaskPolicy

    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_TASK_LEASE_S": "12.5",
                                  "ITACHI_TASK_MAX_SWITCHES": "0"})
    policy = TaskPolicy.from_settings(settings)
    assert (policy.lease_s, policy.max_switches) == (12.5, 0)
    assert TaskPolicy.from_settings(Settings.from_env({"ITACHI_HOME": str(tmp_path)})) == TaskPolicy()


def test_a_malformed_setting_is_refused_naming_its_variable(tmp_path: Path) -> None:
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError, match="ITACHI_DB_POOL_MAX"):
        Settings.from_env({"ITACHI_HOME": str(tmp_path), "ITACHI_DB_POOL_MAX": "many"})


def test_replace_keeps_validation_and_secrets_out_of_the_repr(tmp_path: Path) -> None:
    settings = Settings.from_env({"ITACHI_HOME": str(tmp_path)}).replace(openai_api_key="sk-zzz")
    assert settings.llm_enabled and "sk-zzz" not in repr(settings)
