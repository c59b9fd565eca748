"""The bot's command table, docs/telegram.md and /help name the same commands, each with an example."""

from __future__ import annotations

import re
from pathlib import Path

from chalicelib.telegram.bot.handler_table import COMMAND_HANDLERS
from chalicelib.telegram.domain.bot_commands import help_text

DOC = Path(__file__).resolve().parents[2] / "docs" / "telegram.md"
COMMAND = re.compile(r"`/([a-z_]+)")


def section(title: str) -> str:
    text = DOC.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def handled() -> set[str]:
    return {name for name, _ in COMMAND_HANDLERS}


def test_every_handled_command_has_a_row_in_the_docs_table_and_every_row_is_handled() -> None:
    rows = [line for line in section("Commands").splitlines() if line.startswith("| `/")]
    documented = {name for row in rows for name in COMMAND.findall(row.split(" | ")[0])}
    assert documented == handled()


def test_every_handled_command_has_an_example_in_the_docs_and_every_example_is_handled() -> None:
    examples = [line for line in section("Commands").splitlines() if line.startswith("- `/")]
    named = [COMMAND.match(line[2:]) for line in examples]
    assert all(named), examples
    assert {m.group(1) for m in named if m} == handled()


def test_help_lists_every_handled_command_and_nothing_else() -> None:
    listed = {m.group(1) for line in help_text().splitlines() if (m := re.match(r"/([a-z_]+)", line))}
    assert listed == handled()
