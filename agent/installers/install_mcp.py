"""Register (and unregister) the `itachi mcp` stdio server with Claude Code, Codex or Gemini CLI.

`install-hooks` calls this for the same client and scope. The entry is named ``itachi`` and is
recognised as ours by ``--itachi-client`` in its arguments: an ``itachi`` server someone wrote
by hand is never changed or removed.

- claude: ``mcpServers`` of ``$CLAUDE_CONFIG_DIR/.claude.json`` (else ``~/.claude.json``) for
  the user, of ``<repo>/.mcp.json`` for the project;
- codex: ``[mcp_servers.itachi]`` of ``$CODEX_HOME/config.toml`` (else ``~/.codex/config.toml``)
  or ``<repo>/.codex/config.toml``;
- gemini: ``mcpServers`` of ``~/.gemini/settings.json`` or ``<repo>/.gemini/settings.json``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent.installers import mcp_toml
from agent.installers.client_settings import (
    MARKER,
    InstallError,
    load_settings,
    repo_root,
    save_settings,
    settings_path,
)
from chalicelib.contracts.local_home import itachi_home

NAME = "itachi"


def home_args(env: Mapping[str, str] | None = None) -> list[str]:
    """`--home H` when the state directory is not the default one.

    MCP clients start servers with an environment of their own (the `mcp` SDK passes only HOME,
    PATH and a few more), so an `$ITACHI_HOME` the user set would not reach `itachi mcp`: the
    entry names the directory itself, and with it the API its config.json points at.
    """
    env = os.environ if env is None else env
    return ["--home", str(itachi_home(env=env))] if env.get("ITACHI_HOME") else []


def server_entry(client: str, python: str = sys.executable) -> dict[str, Any]:
    """The stdio server entry: this interpreter running `itachi mcp` for this state directory."""
    return {"command": python, "args": ["-I", "-m", "agent.cli", "mcp", *home_args(), MARKER, client]}


def is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and MARKER in [str(a) for a in entry.get("args") or []]


def config_path(scope: str, client: str, cwd: Path) -> Path:
    """The file where client reads its MCP servers for scope."""
    if client == "claude":
        if scope == "project":
            return repo_root(cwd) / ".mcp.json"
        home = os.environ.get("CLAUDE_CONFIG_DIR")
        return Path(home).expanduser() / ".claude.json" if home else Path.home() / ".claude.json"
    if client == "codex":
        return settings_path(scope, client, cwd).with_name("config.toml")
    return settings_path(scope, client, cwd)  # gemini: the settings.json that holds its hooks


def install_mcp(scope: str, client: str, cwd: Path, python: str = sys.executable) -> Path:
    """Add (or refresh) our server entry; return the file's path. InstallError if the name is taken."""
    path = config_path(scope, client, cwd)
    entry = server_entry(client, python)
    if client == "codex":
        mcp_toml.write_server(path, NAME, entry, is_ours)
        return path
    settings = load_settings(path)
    servers = settings.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise InstallError(f'"mcpServers" in {path} is not an object')
    if NAME in servers and not is_ours(servers[NAME]):
        raise InstallError(f"{path} already has an MCP server named {NAME!r} that Itachi did not write")
    servers[NAME] = {"type": "stdio", **entry, "env": {}} if client == "claude" else entry
    save_settings(path, settings)
    return path


def uninstall_mcp(scope: str, client: str, cwd: Path) -> Path:
    """Remove exactly the entry install_mcp wrote; return the file's path."""
    path = config_path(scope, client, cwd)
    if not path.exists():
        return path
    if client == "codex":
        mcp_toml.remove_server(path, NAME, is_ours)
        return path
    settings = load_settings(path)
    servers = settings.get("mcpServers")
    if isinstance(servers, dict) and is_ours(servers.get(NAME)):
        del servers[NAME]
        if not servers:
            del settings["mcpServers"]
        save_settings(path, settings)
    return path


def print_config(client: str, remote_url: str | None = None) -> str:
    """The snippet to paste into another client's MCP configuration."""
    if remote_url:
        entry: dict[str, Any] = {"type": "http", "url": remote_url.rstrip("/") + "/mcp",
                                 "headers": {"Authorization": "Bearer ${ITACHI_API_KEY}"}}
    else:
        entry = server_entry(client)
        entry["args"] = entry["args"][:-2]  # no marker: uninstall-hooks leaves a pasted entry alone
    if client == "codex":
        return mcp_toml.render_server(NAME, entry)
    return json.dumps({"mcpServers": {NAME: entry}}, indent=2)
