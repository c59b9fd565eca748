"""install-hooks registers `itachi mcp` for its client and scope; uninstall-hooks removes exactly that."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from agent.installers.client_settings import InstallError
from agent.installers.install_mcp import config_path, install_mcp, print_config, uninstall_mcp
from agent.installers.mcp_toml import render_server

PYTHON = "/opt/py/bin/python3"
CODEX_CONFIG = '''model = "o4"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--port", "0"]

[mcp_servers.docs.env]
TOKEN_FILE = "/etc/docs"

[profiles.fast]
model = "o4-mini"
'''


@pytest.fixture
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    return repo


def test_claude_project_scope_writes_mcp_json_at_the_repo_root_and_keeps_other_servers(homes: Path) -> None:
    path = homes / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"github": {"type": "http", "url": "https://example.test"}}}))
    assert install_mcp("project", "claude", homes / "src", PYTHON) == path
    servers = json.loads(path.read_text())["mcpServers"]
    assert servers["itachi"] == {"type": "stdio", "command": PYTHON, "env": {},
                                 "args": ["-I", "-m", "agent.cli", "mcp", "--itachi-client", "claude"]}
    first = path.read_text()
    install_mcp("project", "claude", homes / "src", PYTHON)
    assert path.read_text() == first  # idempotent
    uninstall_mcp("project", "claude", homes)
    assert json.loads(path.read_text()) == {"mcpServers": {"github": {"type": "http",
                                                                      "url": "https://example.test"}}}


def test_claude_user_scope_merges_into_the_cli_config_file(homes: Path, tmp_path: Path) -> None:
    path = tmp_path / "claude-home" / ".claude.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"numStartups": 4, "projects": {"/x": {"allowedTools": []}}}))
    assert config_path("user", "claude", homes) == path
    install_mcp("user", "claude", homes, PYTHON)
    assert json.loads(path.read_text())["mcpServers"]["itachi"]["command"] == PYTHON
    uninstall_mcp("user", "claude", homes)
    assert json.loads(path.read_text()) == {"numStartups": 4, "projects": {"/x": {"allowedTools": []}}}


def test_codex_config_toml_gains_one_table_and_loses_exactly_it(homes: Path, tmp_path: Path) -> None:
    path = tmp_path / "codex-home" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX_CONFIG)
    assert install_mcp("user", "codex", homes, PYTHON) == path
    parsed = tomllib.loads(path.read_text())
    assert parsed["mcp_servers"]["itachi"] == {
        "command": PYTHON, "args": ["-I", "-m", "agent.cli", "mcp", "--itachi-client", "codex"]}
    assert parsed["mcp_servers"]["docs"]["env"] == {"TOKEN_FILE": "/etc/docs"}
    assert parsed["profiles"]["fast"]["model"] == "o4-mini"
    once = path.read_text()
    install_mcp("user", "codex", homes, PYTHON)
    assert path.read_text() == once
    uninstall_mcp("user", "codex", homes)
    assert path.read_text() == CODEX_CONFIG


def test_codex_project_scope_and_a_fresh_file(homes: Path) -> None:
    path = install_mcp("project", "codex", homes / "src", PYTHON)
    assert path == homes / ".codex" / "config.toml"
    assert path.read_text() == render_server("itachi", {
        "command": PYTHON, "args": ["-I", "-m", "agent.cli", "mcp", "--itachi-client", "codex"]})
    uninstall_mcp("project", "codex", homes)
    assert path.read_text() == ""


def test_gemini_shares_its_settings_file_with_the_hooks(homes: Path) -> None:
    path = install_mcp("project", "gemini", homes, PYTHON)
    assert path == homes / ".gemini" / "settings.json"
    assert json.loads(path.read_text())["mcpServers"]["itachi"]["args"][-1] == "gemini"
    uninstall_mcp("project", "gemini", homes)
    assert json.loads(path.read_text()) == {}


@pytest.mark.parametrize("client", ["claude", "gemini", "codex"])
def test_a_server_named_itachi_that_we_did_not_write_is_never_touched(homes: Path, client: str) -> None:
    path = config_path("project", client, homes)
    path.parent.mkdir(parents=True, exist_ok=True)
    if client == "codex":
        path.write_text('[mcp_servers.itachi]\ncommand = "my-own-itachi"\n')
    else:
        path.write_text(json.dumps({"mcpServers": {"itachi": {"command": "my-own-itachi"}}}))
    before = path.read_text()
    with pytest.raises(InstallError, match="did not write"):
        install_mcp("project", client, homes, PYTHON)
    uninstall_mcp("project", client, homes)
    assert path.read_text() == before


def test_print_config_gives_each_client_its_own_format_without_the_install_marker() -> None:
    as_json = json.loads(print_config("json"))["mcpServers"]["itachi"]
    assert as_json["args"] == ["-I", "-m", "agent.cli", "mcp"]
    as_toml = tomllib.loads(print_config("codex"))["mcp_servers"]["itachi"]
    assert as_toml["args"] == ["-I", "-m", "agent.cli", "mcp"]
    remote = json.loads(print_config("json", "https://api.example.test/"))["mcpServers"]["itachi"]
    assert remote == {"type": "http", "url": "https://api.example.test/mcp",
                      "headers": {"Authorization": "Bearer ${ITACHI_API_KEY}"}}


def test_an_entry_names_the_state_directory_set_in_itachi_home(homes: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    default = json.loads(print_config("json"))["mcpServers"]["itachi"]
    assert "--home" not in default["args"]
    monkeypatch.setenv("ITACHI_HOME", str(homes / "state"))
    printed = json.loads(print_config("json"))["mcpServers"]["itachi"]
    assert printed["args"][-2:] == ["--home", str(homes / "state")]
    installed = json.loads(install_mcp("user", "claude", homes, PYTHON).read_text())["mcpServers"]["itachi"]
    assert installed["args"][installed["args"].index("--home") + 1] == str(homes / "state")
