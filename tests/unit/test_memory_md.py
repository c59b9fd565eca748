"""MEMORY.md: only Itachi's sections change, everything else stays byte for byte."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hooks.context_render import rule_lines, session_context_lines
from hooks.memory_md import (
    CONTEXT_HEADING,
    MARKER,
    RULES_HEADING,
    encode_cwd,
    memory_md_path,
    merge_sections,
    render_section,
    update_memory_md,
)

pytestmark = pytest.mark.unit

USER_TOP = "# Memory index\n\n- [prefs](prefs.md): the user likes tabs\n\n"
USER_BOTTOM = "## My notes\nDo not touch   these  spaces.\n\n### Sub\n- keep\n"
OLD_CONTEXT = f"{CONTEXT_HEADING}\n{MARKER}\n\n**Hot files**: old.py (1 edits)\n\n"
OLD_RULES = f"{RULES_HEADING}\n{MARKER}\n\n- old rule (reinforced 1x)\n\n"
NEW = {CONTEXT_HEADING: ["**Hot files**: new.py (9 edits)"], RULES_HEADING: ["- use yarn (reinforced 3x)"]}


def managed_line_count(text: str) -> int:
    lines = text.splitlines()
    count, inside = 0, False
    for line in lines:
        if line.startswith(("# ", "## ")):
            inside = line in (CONTEXT_HEADING, RULES_HEADING)
        count += inside
    return count


def test_the_cwd_is_encoded_with_every_non_alphanumeric_character_as_a_dash() -> None:
    assert encode_cwd("/home/dev/myproject") == "-home-dev-myproject"
    assert encode_cwd("C:\\Users\\foo\\my-project") == "C--Users-foo-my-project"
    assert memory_md_path("/home/dev/x_y", Path("/cfg")) == Path(
        "/cfg/projects/-home-dev-x-y/memory/MEMORY.md"
    )


def test_a_new_file_gets_both_managed_sections_with_their_marker() -> None:
    merged = merge_sections("", NEW)
    assert merged == render_section(CONTEXT_HEADING, NEW[CONTEXT_HEADING]) + render_section(
        RULES_HEADING, NEW[RULES_HEADING]
    )
    assert merged.splitlines()[:2] == [CONTEXT_HEADING, MARKER]


def test_user_sections_around_managed_ones_are_kept_byte_for_byte() -> None:
    existing = USER_TOP + OLD_CONTEXT + "## Between\nmine\n\n" + OLD_RULES + USER_BOTTOM
    merged = merge_sections(existing, NEW)
    assert merged == (
        USER_TOP + render_section(CONTEXT_HEADING, NEW[CONTEXT_HEADING]) + "## Between\nmine\n\n"
        + render_section(RULES_HEADING, NEW[RULES_HEADING]) + USER_BOTTOM
    )


def test_a_missing_section_joins_its_sibling_in_canonical_order() -> None:
    existing = USER_TOP + OLD_RULES + USER_BOTTOM
    merged = merge_sections(existing, NEW)
    expected_block = render_section(CONTEXT_HEADING, NEW[CONTEXT_HEADING]) + render_section(
        RULES_HEADING, NEW[RULES_HEADING]
    )
    assert merged == USER_TOP + expected_block + USER_BOTTOM


def test_a_section_without_fresh_data_is_left_as_it_was() -> None:
    existing = OLD_CONTEXT + OLD_RULES + USER_BOTTOM
    merged = merge_sections(existing, {RULES_HEADING: ["- fresh (reinforced 2x)"]})
    assert merged.startswith(OLD_CONTEXT)
    assert "- fresh (reinforced 2x)" in merged and "old rule" not in merged


def test_crlf_files_and_undecodable_bytes_survive_an_update(tmp_path: Path) -> None:
    path = tmp_path / "memory" / "MEMORY.md"
    path.parent.mkdir()
    user = b"# Notes\r\ncaf\xe9 \xff raw bytes\r\n\r\n"
    path.write_bytes(user + OLD_CONTEXT.replace("\n", "\r\n").encode() + b"## Tail\r\nend")
    assert update_memory_md(path, NEW)
    data = path.read_bytes()
    assert data.startswith(user)
    assert data.endswith(b"## Tail\r\nend")
    assert b"new.py (9 edits)\r\n" in data


def test_managed_headings_inside_a_code_fence_belong_to_the_user() -> None:
    fenced = f"# Doc\n```\n{CONTEXT_HEADING}\nexample\n```\n"
    merged = merge_sections(fenced, NEW)
    assert merged.endswith(fenced)
    assert merged.count(CONTEXT_HEADING) == 2


def test_duplicate_managed_sections_collapse_into_one() -> None:
    merged = merge_sections(OLD_CONTEXT + USER_BOTTOM + OLD_CONTEXT, NEW)
    assert merged.count(CONTEXT_HEADING) == 1
    assert USER_BOTTOM in merged


def test_huge_inputs_stay_within_the_size_budget() -> None:
    briefing = {
        "hot_files": [{"path": "x/" * 200 + f"f{i}.py", "edits": i} for i in range(500)],
        "active_patterns": ["p" * 500] * 50,
        "recent_decisions": ["decided " + "d" * 2000] * 300,
        "active_tasks": [{"id": i, "status": "running", "description": "t" * 900} for i in range(90)],
        "recent_sessions": [{"summary": "s\n" * 400, "ended_at": "2026-11-01"}] * 40,
    }
    recent = {"results": [{"category": "fact", "content": "c" * 5000}] * 50}
    learnings = {"rules": [{"rule": f"rule {i} " + "r" * 700, "times_reinforced": i} for i in range(900)]}
    bodies = {CONTEXT_HEADING: session_context_lines(briefing, recent), RULES_HEADING: rule_lines(learnings)}
    merged = merge_sections(USER_TOP, bodies)
    assert managed_line_count(merged) <= 60
    rules = [line for line in merged.splitlines() if line.startswith("- rule ")]
    assert len(rules) == 15
    assert max(len(line) for line in merged.splitlines()) <= 240
    assert merged.endswith(USER_TOP)


def test_sections_pushed_below_line_200_move_back_to_the_top() -> None:
    long_user = "".join(f"- note {i}\n" for i in range(250))
    existing = "# Index\n" + long_user + OLD_CONTEXT + OLD_RULES + USER_BOTTOM
    merged = merge_sections(existing, NEW)
    first_200 = merged.splitlines()[:200]
    assert CONTEXT_HEADING in first_200 and RULES_HEADING in first_200
    assert merged.endswith("# Index\n" + long_user + USER_BOTTOM)


def test_rewriting_with_the_same_data_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "MEMORY.md"
    path.write_text(USER_TOP)
    os.chmod(path, 0o640)
    assert update_memory_md(path, NEW) is True
    first = path.read_bytes()
    assert update_memory_md(path, NEW) is False
    assert path.read_bytes() == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_rules_render_with_their_reinforcement_count() -> None:
    rules = {"rules": [{"rule": "Always use yarn, not npm", "times_reinforced": 3}]}
    assert rule_lines(rules) == ["- Always use yarn, not npm (reinforced 3x)"]
