"""Itachi hook entry points for Claude Code, Codex and Gemini CLI.

Stdlib only, fast, fail open: run as ``python -I -S <this folder>/launch.py <event>`` (no `site`,
see `hooks.launch`; ``python -I -m hooks.<event>`` works too) with the payload on stdin.
"""
