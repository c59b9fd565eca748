"""/machines (and /machines invite), /repos, /engines, /update and /restart."""

from __future__ import annotations

import re
from typing import Any

from telegram import Update

from chalicelib.kernel.errors import DomainError, InvalidInput, NotFound
from chalicelib.telegram.bot.context import (
    Context,
    available,
    blocking,
    command,
    commands,
    reply,
    services,
    topic_of,
)
from chalicelib.telegram.domain.bot_commands import parse_engines

MAX_REGISTRY_LINES = 60


def _machine_line(m: dict[str, Any]) -> str:
    engines = ", ".join(m["engine_priority"]) or "-"
    return (f"{m['id']} ({m['status']}): {m['assigned_tasks']}/{m['max_concurrent']} busy, "
            f"engines {engines}, heartbeat {m['seconds_since_heartbeat']:.0f}s ago")


@command("machines")
async def machines(update: Update, context: Context) -> None:
    args = context.args or []
    if args[:1] == ["invite"]:
        await _invite(update, context, args[1] if len(args) > 1 else None)
        return
    listed = await blocking(services(context).machines.list_machines)
    if not listed:
        await reply(update, context,
                    "No machine has registered yet. Run `itachi agent` (or `itachi up`) on one.")
        return
    await reply(update, context, "Machines:\n" + "\n".join(f"- {_machine_line(m)}" for m in listed))


async def _invite(update: Update, context: Context, machine_id: str | None) -> None:
    """/machines invite <id>: a one-time join command for it, valid an hour (the chat is the admin's)."""
    onboarding = services(context).onboarding
    if onboarding is None:
        await reply(update, context, "Machine invites are not available here.")
        return
    user = update.effective_user
    try:
        invite, token = await blocking(onboarding.invite, f"telegram:{user.id if user else '?'}", machine_id)
    except DomainError as exc:
        await reply(update, context, f"Cannot invite: {exc.message}")
        return
    command = invite.join_command(services(context).public_url, token)
    await reply(update, context, f"Run this on {invite.machine_id} before {invite.expires_at:%H:%M} UTC "
                f"(it works once):\n{command}")


@command("repos")
async def repos(update: Update, context: Context) -> None:
    bot = services(context)
    listed = await blocking(bot.machines.list_machines)
    owners: dict[str, list[str]] = {}
    for m in listed:
        for name in [*m["projects"], *m["repos"]]:
            owners.setdefault(name, []).append(m["id"])
    registry = await blocking(bot.repo_registry) if bot.repo_registry is not None else []
    if not owners and not registry:
        await reply(update, context, "No repositories registered: agents report the projects they have.")
        return
    parts = []
    if owners:
        lines = [f"- {name}: {', '.join(sorted(set(ids)))}" for name, ids in sorted(owners.items())]
        parts.append("Repositories (machines that have them):\n" + "\n".join(lines))
    if registry:
        lines = [f"- {r['full_name']} ({r['default_branch']}){' [archived]' if r['archived'] else ''}"
                 for r in registry[:MAX_REGISTRY_LINES]]
        extra = len(registry) - MAX_REGISTRY_LINES
        more = f"\n... and {extra} more" if extra > 0 else ""
        parts.append("GitHub repositories (default branch):\n" + "\n".join(lines) + more)
    await reply(update, context, "\n\n".join(parts))


@command("engines")
async def engines(update: Update, context: Context) -> None:
    request = parse_engines(context.args or [])
    registry = services(context).machines
    listed = await blocking(registry.list_machines)
    chosen = [m for m in listed if request.machine in (None, m["id"])]
    if request.machine and not chosen:
        raise NotFound(f"No machine named {request.machine}.")
    if request.order is None:
        lines = [f"- {m['id']}: {' > '.join(m['engine_priority']) or '-'}" for m in chosen]
        await reply(update, context,
                    "Engine order:\n" + "\n".join(lines) if lines else "No machine is registered.")
        return
    # Stored on the server; the agent adopts it from its next heartbeat's answer.
    controls = available(services(context).machine_controls,
                         "The engine order is the agent's: set ITACHI_ENGINE_PRIORITY (e.g. codex,claude) "
                         f"on {request.machine} and restart its agent.")
    await blocking(controls.set_engine_priority, request.machine, request.order)
    await reply(update, context, f"{request.machine} will try {' > '.join(request.order)} "
                "(its agent adopts it with its next heartbeat).")


@commands("update", "restart")
async def restart_machine(update: Update, context: Context, kind: str) -> None:
    """The agent stops taking tasks, lets its running ones end, (updates itself,) starts again."""
    args = context.args or []
    if len(args) != 1 or not re.fullmatch(r"[\w-]{1,40}", args[0]):
        raise InvalidInput(f"Usage: /{kind} <machine>")
    controls = available(services(context).machine_controls, f"/{kind} is not available here.")
    chat = update.effective_chat
    await blocking(controls.request_restart, args[0], kind, chat_id=chat.id if chat else None,
                   topic_id=topic_of(update))
    what = "update itself and restart" if kind == "update" else "restart"
    await reply(update, context, f"{args[0]} will {what} once its running tasks end; "
                "I will say here when it is back, with its version.")
