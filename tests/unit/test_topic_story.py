"""How task and session events read in their topic."""

from __future__ import annotations

from chalicelib.telegram.domain.topic_story import closed_title, event_line, result_message, topic_title


def test_progress_events_read_as_marked_lines() -> None:
    assert event_line({"kind": "text", "text": "Reading the code"}) == "Reading the code"
    assert event_line({"kind": "started", "text": "attempt 1 on laptop"}) == "▶️ attempt 1 on laptop"
    bash = {"kind": "tool_use", "text": "Bash", "data": {"command": "pytest -q"}}
    write = {"kind": "tool_use", "text": "Write a.py", "data": {"file_path": "a.py"}}
    assert event_line(bash) == "🔧 Bash pytest -q"
    assert event_line(write) == "🔧 Write a.py"  # the target is not repeated


def test_events_the_result_covers_or_that_are_empty_are_not_shown() -> None:
    for kind in ("completed", "failed", "result", "created", "user_input", "tool_result"):
        assert event_line({"kind": kind, "text": "something"}) is None
    assert event_line({"kind": "text", "text": "   "}) is None


def test_the_result_message_names_the_outcome_summary_and_files() -> None:
    text = result_message("timed_out", "Ran out of time.", [f"f{i}.py" for i in range(25)])

    assert text.startswith("⏱ Timed out\n\nRan out of time.\n\nFiles changed:\n- f0.py")
    assert text.endswith("... and 5 more")


def test_titles_fit_telegrams_128_characters() -> None:
    title = topic_title("myproject", "x" * 300)

    assert len(title) <= 128 and title.startswith("myproject: xxx")
    assert len(closed_title(title, "failed")) <= 128 and closed_title(title, "failed").startswith("❌ ")
