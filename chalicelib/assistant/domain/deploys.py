"""/deploy: a project's configured deploy command, run as a task whose prompt asks the engine to
run exactly that command and nothing else, after the user confirms it with a button."""

from __future__ import annotations

MAX_COMMAND_CHARS = 1000


def deploy_prompt(project: str, command: str) -> str:
    return (f"Deploy {project}: run exactly this command from the project's root directory, once, and "
            f"nothing else. Change no file. Report its output and exit code.\n\n{command}")


def deploy_offer_text(project: str, machine: str | None, command: str) -> str:
    where = machine or "the first free machine (none has this project yet)"
    return f"🚀 Deploy {project} on {where}?\n\n{command}\n\nThe output streams to the task's topic."
