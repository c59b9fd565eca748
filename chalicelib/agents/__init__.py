"""Subagents: specialist profiles, runs with a lifecycle, messaging, cron, lessons."""
