"""The code-intelligence workers on a real database: what each stores, that a second run with
nothing new changes nothing, and the rules path without an OpenAI key."""

from __future__ import annotations

from typing import Any, cast

from chalicelib.bootstrap import Container
from chalicelib.kernel.schedule_table import SCHEDULES, ScheduleSpec
from infra.local.scheduler import run_schedule_once
from tests.support.codeintel_world import remember, seed_project, session, state, texts

BY_NAME = {spec.name: spec for spec in SCHEDULES}


def run(spec: ScheduleSpec) -> dict[str, Any]:
    """The worker's handler, invoked as EventBridge invokes it; its counts."""
    return cast(dict[str, Any], run_schedule_once(spec))


def test_every_worker_has_its_row_in_the_schedule_table() -> None:
    periods = {
        name: BY_NAME[name].rate_expression
        for name in (
            "session-synthesizer",
            "edit-analyzer",
            "repo-expertise",
            "style-extractor",
            "cross-project",
            "transcript-indexer",
            "github-sync",
        )
    }
    assert periods == {
        "session-synthesizer": "rate(30 minutes)",
        "edit-analyzer": "rate(15 minutes)",
        "repo-expertise": "rate(1 day)",
        "style-extractor": "rate(7 days)",
        "cross-project": "rate(7 days)",
        "transcript-indexer": "rate(1 hour)",
        "github-sync": "rate(1 day)",
    }


def test_the_session_synthesizer_summarises_each_completed_session_once(intel: Container) -> None:
    seed_project(intel, sessions=2)

    first = run(BY_NAME["session-synthesizer"])
    before = state(intel)
    second = run(BY_NAME["session-synthesizer"])

    assert first == {"synthesized": 2, "by_llm": 0}
    assert second == {"synthesized": 0, "by_llm": 0}
    assert state(intel) == before
    summaries = texts(intel, "billing", "session_summary")
    assert len(summaries) == 2
    assert all("Please fix the invoice totals" in s for s in summaries)
    assert all("Decisions: We decided to use httpx instead of requests" in s for s in summaries)
    assert all("Open ends: Still need to add retries" in s for s in summaries)
    briefing = intel.sessions.briefing("billing")
    assert len(briefing["session_summaries"]) == 2


def test_the_session_synthesizer_is_bounded_per_run(intel: Container) -> None:
    seed_project(intel, sessions=3)

    assert intel.codeintel.session_synthesizer.run(limit=2)["synthesized"] == 2
    assert intel.codeintel.session_synthesizer.run(limit=2)["synthesized"] == 1
    assert intel.codeintel.session_synthesizer.run(limit=2)["synthesized"] == 0


def test_the_edit_analyzer_stores_hot_files_co_changes_and_failing_files_as_patterns(
    intel: Container,
) -> None:
    seed_project(intel, sessions=4)

    first = run(BY_NAME["edit-analyzer"])
    before = state(intel)
    second = run(BY_NAME["edit-analyzer"])

    assert first == {"projects": 1, "changed": 1, "patterns": 4}
    assert second == {"projects": 0, "changed": 0, "patterns": 0}
    assert state(intel) == before
    patterns = intel.sessions.briefing("billing")["active_patterns"]
    assert any(p.startswith("Hot files: src/billing/invoices.py (4 edits)") for p in patterns)
    assert "Changed together: src/billing/invoices.py and src/billing/totals.py (in 4 sessions)" in patterns
    assert "Edits keep failing on: src/billing/legacy.py (2 failed edits)" in patterns


def test_new_edits_replace_the_patterns_instead_of_adding_to_them(intel: Container) -> None:
    seed_project(intel, sessions=3)
    intel.codeintel.edit_analyzer.run()
    session(intel, "billing-late", "billing", ["src/billing/invoices.py", "src/billing/totals.py"])

    again = intel.codeintel.edit_analyzer.run()

    assert again["changed"] == 1
    hot = [t for t in texts(intel, "billing", "pattern_observation") if t.startswith("Hot files")]
    assert hot == [
        "Hot files: src/billing/invoices.py (4 edits), src/billing/totals.py (4 edits), "
        "tests/test_invoices_0.py (2 edits), tests/test_invoices_1.py (1 edit)"
    ]


def test_repo_expertise_documents_areas_key_files_conventions_and_decisions(intel: Container) -> None:
    seed_project(intel)
    remember(intel, "billing", "project_rule", "Always run the billing migrations before the tests")
    remember(intel, "billing", "decision", "Invoices are stored in cents, never floats")

    first = run(BY_NAME["repo-expertise"])
    before = state(intel)
    second = run(BY_NAME["repo-expertise"])

    assert first == {"projects": 1, "changed": 1, "by_llm": 0}
    assert second == {"projects": 0, "changed": 0, "by_llm": 0}
    assert state(intel) == before
    document = intel.codeintel.repo_expertise.expertise_for("billing")
    assert document is not None
    assert "Areas: src/ (8 edits), tests/ (4 edits)" in document
    assert "Key files: src/billing/invoices.py, src/billing/totals.py" in document
    assert "Conventions: Always run the billing migrations before the tests" in document
    assert "Recent decisions: Invoices are stored in cents, never floats" in document
    assert intel.sessions.briefing("billing")["repo_expertise"] == document


def test_tasks_on_a_repository_get_its_expertise_in_their_prompt(intel: Container) -> None:
    seed_project(intel)
    intel.codeintel.repo_expertise.run()

    prompt = intel.prompt_enricher.enrich("Fix the rounding of invoice totals", "billing")

    assert "Repository expertise for billing" in prompt
    assert "Key files: src/billing/invoices.py" in prompt
    assert intel.prompt_enricher.enrich("Fix it", "elsewhere").count("Repository expertise") == 0


def test_the_style_extractor_writes_one_style_line_from_the_added_code(intel: Container) -> None:
    seed_project(intel)

    first = run(BY_NAME["style-extractor"])
    before = state(intel)
    second = run(BY_NAME["style-extractor"])

    assert first["changed"] == 1 and second == {"projects": 0, "changed": 0, "by_llm": 0}
    assert state(intel) == before
    (style,) = texts(intel, "billing", "style")
    assert style.startswith(
        "Style: python; snake_case names; 4-space indent; double quotes; tests change with the code"
    )
    assert style.endswith("prefers httpx, pydantic, pytest")
    assert intel.sessions.briefing("billing")["style"] == style


def test_lessons_confirmed_in_two_projects_are_proposed_into_global_with_provenance(intel: Container) -> None:
    billing = remember(
        intel, "billing", "project_rule", "Always run database migrations before running tests"
    )
    shop = remember(intel, "shop", "task_lesson", "Run the database migrations before running the tests")
    remember(intel, "shop", "project_rule", "Prefer small pull requests")

    first = run(BY_NAME["cross-project"])
    before = state(intel)
    second = run(BY_NAME["cross-project"])

    assert first == {"groups": 1, "proposed": 1, "by_llm": 0}
    assert second == {"groups": 1, "proposed": 0, "by_llm": 0}
    assert state(intel) == before
    (proposal,) = intel.memory.recent("_global", limit=10, category="global_proposal")
    assert proposal.content.startswith("Proposed for every project: ")
    assert proposal.metadata["status"] == "proposed"
    assert proposal.metadata["projects"] == ["billing", "shop"]
    assert {p["memory_id"] for p in proposal.metadata["provenance"]} == {billing, shop}
    assert intel.project_rules.learnings("_global") == []  # proposed, never copied as a rule


def test_transcripts_are_indexed_redacted_and_left_out_of_default_search(intel: Container) -> None:
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    session(
        intel,
        "t1",
        "billing",
        ["src/billing/invoices.py"],
        transcript=[
            {"role": "user", "text": f"The flaky webhook retry uses key {secret} in staging", "line": 1},
            {"role": "assistant", "text": "The webhook retry backs off exponentially now. " * 60, "line": 2},
        ],
    )

    first = run(BY_NAME["transcript-indexer"])
    before = state(intel)
    second = run(BY_NAME["transcript-indexer"])

    assert first["sessions"] == 1 and first["chunks"] >= 2
    assert second == {"sessions": 0, "chunks": 0}
    assert state(intel) == before
    chunks = texts(intel, "billing", "transcript")
    assert len(chunks) == first["chunks"]
    assert secret not in "".join(chunks) and "flaky webhook retry" in "".join(chunks)  # any order
    asked = intel.memory.search("flaky webhook retry", "billing", category="transcript").hits
    default = intel.memory.search("flaky webhook retry", "billing").hits
    assert asked and all(h.category == "transcript" for h in asked)
    assert all(h.category != "transcript" for h in default)
    assert all(m.category != "transcript" for m in intel.memory.recent("billing", limit=50))


def test_personality_traits_seen_again_are_reinforced_not_duplicated(intel: Container) -> None:
    model = intel.user_model
    for batch in range(2):
        for i in range(10):
            model.observe(42, "Alice", f"thanks, ship {batch}-{i}")

    traits = {
        m.content: m.times_reinforced for m in intel.memory.recent("_global", category="personality_trait")
    }

    assert traits == {
        "Writes tersely: prefers short, direct answers": 2,
        "Polite and appreciative in tone": 2,
    }
    assert model.top_traits()[0][2] == 2
