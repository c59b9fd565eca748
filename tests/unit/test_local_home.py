"""The state directory and the client config: one answer for the hooks, the CLI, the agent and the server."""

from __future__ import annotations

import json
from pathlib import Path

from chalicelib.contracts.local_home import DEFAULT_API_URL, itachi_home, load_client_config, read_json
from chalicelib.kernel.settings import Settings


def test_the_state_directory_is_the_option_then_itachi_home_then_the_xdg_default(tmp_path: Path) -> None:
    env = {"ITACHI_HOME": str(tmp_path / "from-env")}
    assert itachi_home(tmp_path / "option", env) == tmp_path / "option"
    assert itachi_home(None, env) == tmp_path / "from-env"
    assert itachi_home(None, {}) == Path.home() / ".local" / "share" / "itachi"
    assert itachi_home("~/elsewhere", {}) == Path.home() / "elsewhere"


def test_the_server_settings_use_the_same_state_directory(tmp_path: Path) -> None:
    env = {"ITACHI_HOME": str(tmp_path)}
    assert Settings.from_env(env).home == itachi_home(env=env) == load_client_config(env=env).home


def test_the_client_config_comes_from_config_json_and_the_environment_overrides_it(tmp_path: Path) -> None:
    stored_config = {"api_url": "http://api.test:9/", "api_key": "from-file"}
    (tmp_path / "config.json").write_text(json.dumps(stored_config))
    env = {"ITACHI_HOME": str(tmp_path)}
    stored = load_client_config(env=env)
    assert (stored.api_url, stored.api_key) == ("http://api.test:9", "from-file")
    override = load_client_config(env={**env, "ITACHI_API_URL": "http://other:1", "ITACHI_API_KEY": "k2"})
    assert (override.api_url, override.api_key) == ("http://other:1", "k2")
    assert "from-file" not in repr(stored)


def test_a_missing_or_broken_config_means_the_local_default_and_no_key(tmp_path: Path) -> None:
    config = load_client_config(env={"ITACHI_HOME": str(tmp_path)})
    assert (config.api_url, config.api_key) == (DEFAULT_API_URL, "")
    (tmp_path / "config.json").write_text("[1, 2]")
    assert read_json(tmp_path / "config.json") == {}
    (tmp_path / "config.json").write_text("{not json")
    config = load_client_config(env={"ITACHI_HOME": str(tmp_path)})
    assert (config.api_url, config.api_key) == (DEFAULT_API_URL, "")


def test_only_the_contracts_module_knows_where_the_state_directory_lives() -> None:
    root = Path(__file__).resolve().parents[2]
    places = [str(p.relative_to(root)) for folder in ("agent", "hooks", "chalicelib", "infra", "functions")
              for p in (root / folder).rglob("*.py")
              if '".local"' in p.read_text() or ".local/share/itachi\"" in p.read_text()]
    assert places == ["chalicelib/contracts/local_home.py"]
