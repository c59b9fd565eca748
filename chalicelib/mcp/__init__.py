"""MCP: Itachi's memory, rules and tasks as Model Context Protocol tools (stdio and `/mcp`)."""
