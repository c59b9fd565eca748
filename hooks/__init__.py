"""Itachi hook entry points for Claude Code, Codex and Gemini CLI.

Stdlib only, fast, fail open: run as ``python -I -m hooks.<event>`` with the payload on stdin.
"""
