"""The `itachi` command line. Each verb lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from agent.commands import (
    agent_commands,
    backfill_commands,
    brain_commands,
    console_commands,
    context_commands,
    graph_commands,
    import_rules_commands,
    join_commands,
    key_commands,
    local_stack_commands,
    logs_commands,
    mcp_commands,
    memory_commands,
    memory_lifecycle_commands,
    memory_transfer_commands,
    namespace_commands,
    rules_commands,
    service_commands,
    session_commands,
    ssh_commands,
    subagent_commands,
    sync_commands,
    task_commands,
    telegram_commands,
    usage_commands,
)
from agent.engines import approval_env
from agent.installers import install_hooks
from agent.wrappers import wrapper_cli

# One line per command module: each exposes add_parser(subparsers) and sets `func`.
REGISTRARS: list[Callable[[argparse._SubParsersAction], None]] = [  # type: ignore[type-arg]
    local_stack_commands.add_up_parser,
    local_stack_commands.add_migrate_parser,
    local_stack_commands.add_status_parser,
    local_stack_commands.add_doctor_parser,
    usage_commands.add_usage_parser,
    brain_commands.add_brain_parser,
    logs_commands.add_logs_parser,
    key_commands.add_keys_parser,
    namespace_commands.add_namespace_parser,
    telegram_commands.add_telegram_parser,
    install_hooks.add_parser,
    wrapper_cli.add_parser,
    agent_commands.add_agent_parser,
    task_commands.add_task_parser,
    task_commands.add_tasks_parser,
    task_commands.add_machines_parser,
    subagent_commands.add_agents_parser,
    join_commands.add_join_parser,
    service_commands.add_service_parser,
    session_commands.add_session_parser,
    memory_commands.add_search_parser,
    memory_commands.add_remember_parser,
    memory_commands.add_forget_parser,
    memory_commands.add_index_parser,
    context_commands.add_context_parser,
    approval_env.add_approvals_parser,
    import_rules_commands.add_import_rules_parser,
    backfill_commands.add_backfill_parser,
    rules_commands.add_rules_parser,
    memory_lifecycle_commands.add_memory_parser,
    memory_transfer_commands.add_export_parser,
    memory_transfer_commands.add_import_parser,
    sync_commands.add_sync_parser,
    mcp_commands.add_mcp_parser,
    ssh_commands.add_ssh_parser,
    graph_commands.add_graph_parser,
    graph_commands.add_recall_parser,
    console_commands.add_console_parser,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="itachi", description="Itachi: memory and tasks for AI coding agents.",
        epilog="A first argument that is a flag or not a command runs Claude Code through the wrapper: "
               "itachi --ds, itachi --c, itachi --dp \"fix the login bug\" (see itachi claude).")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in REGISTRARS:
        register(sub)
    return parser


def command_names(parser: argparse.ArgumentParser) -> set[str]:
    return {name for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if wrapper_cli.goes_to_engine(words, command_names(parser)):  # `itachi --dp "..."`: the Claude wrapper
        return wrapper_cli.run("claude", words)
    args = parser.parse_args(words)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    return int(func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
