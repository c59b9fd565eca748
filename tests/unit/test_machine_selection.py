"""Choosing a machine for a task."""

from __future__ import annotations

from chalicelib.tasks.domain.machine_selection import (
    MachineView,
    TaskNeeds,
    choose_machine,
    machine_with_code,
    online_status,
)


def machine(mid: str, *, age: float = 1.0, status: str = "online", cap: int = 2, load: int = 0,
            engines: tuple[str, ...] = ("claude", "codex"), projects: tuple[str, ...] = (),
            repos: tuple[str, ...] = ()) -> MachineView:
    return MachineView(mid, status, age, cap, load, engines, projects, repos)


def test_the_machine_that_has_the_repo_is_chosen() -> None:
    machines = [machine("a", repos=("/src/x",)), machine("b", repos=("/src/app/",))]
    assert choose_machine(machines, TaskNeeds("p", repo="/src/app")) == "b"


def test_a_repo_url_matches_with_or_without_dot_git() -> None:
    machines = [machine("a"), machine("b", repos=("git@github.com:me/app.git",))]
    assert choose_machine(machines, TaskNeeds("p", repo="git@github.com:me/app")) == "b"


def test_the_machine_that_has_the_project_is_chosen() -> None:
    machines = [machine("a", projects=("other",)), machine("b", projects=("p",))]
    assert choose_machine(machines, TaskNeeds("p")) == "b"


def test_a_task_waits_for_its_repo_machine_rather_than_run_elsewhere() -> None:
    machines = [machine("a"), machine("b", repos=("/src/app",), age=500)]
    assert choose_machine(machines, TaskNeeds("p", repo="/src/app")) is None


def test_a_task_nobody_knows_goes_to_any_machine_with_capacity() -> None:
    machines = [machine("a", load=2), machine("b")]
    assert choose_machine(machines, TaskNeeds("p", repo="/tmp/new")) == "b"


def test_the_requested_machine_is_the_only_candidate() -> None:
    machines = [machine("a"), machine("b", load=1)]
    assert choose_machine(machines, TaskNeeds("p", target_machine="b")) == "b"
    assert choose_machine(machines, TaskNeeds("p", target_machine="zzz")) is None


def test_a_machine_without_a_heartbeat_for_90_seconds_is_offline() -> None:
    assert online_status(machine("a", age=89.0)) == "online"
    assert online_status(machine("a", age=91.0)) == "offline"
    assert choose_machine([machine("a", age=91.0)], TaskNeeds("p")) is None


def test_draining_and_full_machines_get_no_task() -> None:
    machines = [machine("a", status="draining"), machine("b", cap=1, load=1)]
    assert choose_machine(machines, TaskNeeds("p")) is None


def test_the_least_loaded_machine_wins() -> None:
    machines = [machine("a", cap=4, load=3), machine("b", cap=4, load=1), machine("c", cap=2, load=1)]
    assert choose_machine(machines, TaskNeeds("p")) == "b"


def test_a_requested_engine_needs_a_machine_that_runs_it() -> None:
    machines = [machine("a", engines=("claude",)), machine("b", engines=("gemini",), load=1)]
    assert choose_machine(machines, TaskNeeds("p", engine="gemini")) == "b"


def test_an_offer_names_the_machine_the_dispatcher_would_choose_among_those_with_the_project() -> None:
    machines = [machine("a", projects=("p",), load=1), machine("b", projects=("p",), cap=4, load=1),
                machine("c", load=0)]
    assert machine_with_code(machines, "p") == choose_machine(machines, TaskNeeds("p")) == "b"


def test_an_offer_names_a_full_machine_with_the_project_and_no_machine_without_it() -> None:
    machines = [machine("a", repos=("github.com/me/app",), load=2), machine("b")]
    assert machine_with_code(machines, "github.com/me/app.git") == "a"
    assert machine_with_code(machines, "other") is None
    assert machine_with_code([machine("a", projects=("p",), status="draining")], "p") is None
