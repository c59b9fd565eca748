"""The agent's version, reported with every heartbeat (an update changes this file)."""

VERSION = "0.1.0"
