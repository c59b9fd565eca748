"""The coding engines the agent runs: their command lines, processes, output and gated turns."""
