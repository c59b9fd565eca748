"""What Itachi installs on this machine: client hooks and MCP entries, the agent's service and its updates."""
