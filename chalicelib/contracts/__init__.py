"""Wire formats and identities shared by the server, the agent and the hooks (stdlib only)."""
