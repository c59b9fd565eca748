"""The lifecycle's pure rules: priority from difficulty, recency in sessions and use; protection;
hint and abstract keep the key facts; tags; the memory file format; /memory's arguments."""

from __future__ import annotations

import pytest

from chalicelib.contracts.memory_files import (
    ARCHIVE_KEYS,
    MEMORY_KEYS,
    BadMemoryFile,
    parse,
    project_dir,
    render,
)
from chalicelib.kernel.errors import InvalidInput
from chalicelib.memory.domain.memory_lifecycle import (
    UsageFacts,
    eviction_order,
    is_protected,
    phase_number,
    priority,
)
from chalicelib.memory.domain.memory_profiles import PROFILES, generate
from chalicelib.memory.domain.memory_reduction import abstract, hint
from chalicelib.memory.domain.memory_tags import auto_tags, free_tags, merge_tags
from chalicelib.telegram.domain.bot_commands import parse_memory

TEXT = ("We moved the session cache from memcached to Redis 7.2 on 2026-03-14 after the outage. "
        "It was a long week. The old node cache01.prod served 4,000 requests per second. "
        "Everyone was tired and nobody enjoyed it.")


def _facts(name: str, difficulty: float | None, since: int, uses: int) -> UsageFacts:
    return UsageFacts(name, 0, difficulty, since, uses)


def test_priority_weighs_difficulty_recency_in_sessions_and_frequency_as_seed_003_does() -> None:
    assert priority(_facts("a", 1.0, 0, 10)) == 1.0
    assert priority(_facts("a", 0.0, 0, 0)) == pytest.approx(0.3)
    assert priority(_facts("a", None, 1, 5)) == pytest.approx(0.4 * 0.5 + 0.3 * 0.5 + 0.3 * 0.5)
    assert priority(_facts("a", 0.5, 3, 50)) == priority(_facts("a", 0.5, 3, 10))  # frequency caps at 10


def test_the_eviction_order_puts_easy_old_unused_memories_first_and_breaks_ties_by_id() -> None:
    crafted = [_facts("hard", 0.9, 6, 0), _facts("used", 0.5, 6, 8), _facts("fresh", 0.5, 0, 0),
               _facts("b-plain", 0.5, 6, 0), _facts("a-plain", 0.5, 6, 0), _facts("easy", 0.1, 6, 0)]
    assert [f.memory_id for f in eviction_order(crafted)] == ["easy", "a-plain", "b-plain", "hard", "used",
                                                              "fresh"]


def test_rules_instructions_confident_lessons_and_kept_memories_are_protected() -> None:
    assert is_protected("project_rule", 0.1, [])
    assert is_protected("instruction", 0.1, [])
    assert is_protected("task_lesson", 0.7, []) and not is_protected("task_lesson", 0.69, [])
    assert is_protected("fact", 0.1, ["keep"]) and not is_protected("fact", 0.9, ["entity:keep"])


def test_phases_are_named_or_numbered() -> None:
    assert [phase_number(p) for p in ("full", "hint", "abstract", "archived", "2")] == [0, 1, 2, 3, 2]
    with pytest.raises(ValueError):
        phase_number("gone")


def test_a_hint_keeps_the_lead_and_the_facts_and_an_abstract_is_one_short_line() -> None:
    short = hint(TEXT)
    assert short.startswith("We moved the session cache") and "4,000" in short and "tired" not in short
    line = abstract(TEXT)
    assert len(line) <= 160 and "2026-03-14" in line and "cache01.prod" in line and "\n" not in line


def test_tags_are_free_and_automatic_sorted_and_prefixed() -> None:
    auto = auto_tags("code_change", ["src/App.py"], "Fixed RetryPolicy in src/App.py")
    assert {"category:code_change", "file:app.py", "ext:py", "entity:retrypolicy"} <= set(auto)
    assert free_tags({"tags": ["keep", 3, " ops "]}, ["x\x01"]) == ["keep", "ops"]
    assert merge_tags(["b", "a"], ["a", " "]) == ("a", "b")


def test_a_memory_file_renders_sorted_with_lf_only_and_reads_back_exactly() -> None:
    head = {k: None for k in MEMORY_KEYS} | {"metadata": {"z": 1, "a": "é"}, "tags": ["b", "a"]}
    for content in ("one line", "ends with a newline\n", "windows\r\nlines", "a\n---\nb"):
        text = render(head, content)
        assert "\r" not in text and text == render(dict(reversed(list(head.items()))), content)
        assert parse(text, MEMORY_KEYS) == (head, content)
    assert render(head, "x").splitlines()[1].startswith("category: ")
    assert project_dir("git.example.com/team/app") == "git.example.com%2Fteam%2Fapp"


@pytest.mark.parametrize(("text", "why"), [
    ("no front matter", "does not start"),
    ("---\nid: \"x\"\n", "not closed"),
    ("---\nid \"x\"\n---\nbody\n", "expected 'key: value'"),
    ("---\nid: [\n---\nbody\n", "not valid"),
    ("---\nwho: 1\n---\nbody\n", "unknown key"),
    ("---\nid: \"x\"\n---\nbody\n", "missing"),
])
def test_a_broken_memory_file_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(BadMemoryFile, match=why):
        parse(text, ARCHIVE_KEYS)


def test_the_noisy_large_profile_is_twenty_thousand_distinct_items_the_same_every_time() -> None:
    items = list(generate("noisy-large", "p"))
    assert len(items) == PROFILES["noisy-large"] == 20_000
    assert len({i.content_hash for i in items}) == 20_000
    assert [i.content for i in generate("small-baseline", "p")] == [i.content for i in items[:200]]


def test_memory_command_arguments() -> None:
    assert parse_memory(["stats"]).project is None and parse_memory(["check", "shop"]).project == "shop"
    assert parse_memory(["snapshot", "pre-demo", "shop"]).name == "pre-demo"
    for bad in ([], ["vacuum"], ["snapshot"], ["snapshot", "bad name!"], ["stats", "a", "b"]):
        with pytest.raises(InvalidInput):
            parse_memory(bad)
