"""The session picker's folder walk: the agent's confined listings and what a reply in the topic means."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.folders import PAGE, configured_roots, list_folder
from chalicelib.telegram.domain.folder_walk import FolderWalk, listing_text, step

pytestmark = pytest.mark.unit


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "src"
    for name in ("alpha/.git", "beta/inner", ".hidden", "Gamma"):
        (base / name).mkdir(parents=True)
    (base / "notes.txt").write_text("not a folder")
    (tmp_path / "secret").mkdir()
    (base / "escape").symlink_to(tmp_path / "secret")
    return base


def test_the_top_lists_the_configured_roots_and_a_root_lists_its_visible_folders(root: Path) -> None:
    roots = configured_roots(f"{root}, /does/not/exist", [str(root)])

    top = list_folder("m1", roots, "")
    inside = list_folder("m1", roots, str(root))

    assert roots == (root.resolve(),)
    assert ([e.name for e in top.entries], top.parent) == ([str(root.resolve())], None)
    assert [(e.name, e.repo) for e in inside.entries] == [("alpha", True), ("beta", False), ("Gamma", False)]
    assert (inside.parent, inside.total, inside.error) == ("", 3, None)
    assert list_folder("m1", roots, str(root / "beta")).parent == str(root.resolve())


@pytest.mark.parametrize("attempt", ["{root}/../../etc", "/etc", "{root}/..", "{root}/escape", "../../etc",
                                     "{root}/notes.txt"])
def test_a_path_outside_the_roots_or_not_a_folder_is_refused(root: Path, attempt: str) -> None:
    roots = configured_roots(str(root), [])

    refused = list_folder("m1", roots, attempt.format(root=root))

    assert refused.error and refused.entries == [] and refused.parent is None


def test_a_big_folder_is_listed_a_page_at_a_time(root: Path) -> None:
    for i in range(PAGE + 5):
        (root / "Gamma" / f"d{i:03}").mkdir()
    roots = configured_roots(str(root), [])

    first = list_folder("m1", roots, str(root / "Gamma"))
    second = list_folder("m1", roots, str(root / "Gamma"), offset=PAGE)

    assert (len(first.entries), len(second.entries), first.total) == (PAGE, 5, PAGE + 5)
    assert second.entries[0].name == f"d{PAGE:03}"


def _walk(**fields: object) -> FolderWalk:
    base: dict[str, object] = dict(request_id="r1", chat_id=1, topic_id=2, machine="laptop", engine="claude",
                                   label="itachi --ds", prompt="hi", title="laptop: hi", listing_id="l1")
    return FolderWalk(**{**base, **fields})  # type: ignore[arg-type]


def test_replies_enter_go_up_page_and_start_and_anything_else_is_refused() -> None:
    top = _walk(path="", parent=None, entries=({"name": "/home/u/src"},), total=1)
    inside = _walk(path="/home/u/src", parent="", entries=({"name": "app"}, {"name": "lib"}), total=40)

    assert step(top, "1").path == "/home/u/src"
    assert step(top, "0").refusal and step(top, "..").refusal  # nothing to start at the top, nothing above it
    assert step(inside, "2").path == "/home/u/src/lib"
    assert step(inside, "..").path == ""
    assert (step(inside, "+").path, step(inside, "+").offset) == ("/home/u/src", 2)
    assert step(inside, "0").start
    for typed in ("../../etc", "/etc", "3", "app/../..", "cd .."):
        assert step(inside, typed).refusal, typed
    assert step(_walk(), "1").refusal == "The folder list has not arrived yet."


def test_a_listing_reads_as_numbered_folders_with_the_ways_out() -> None:
    text = listing_text("laptop", {"path": "/home/u/src", "parent": "", "offset": 0, "total": 3,
                                   "entries": [{"name": "app", "repo": True}, {"name": "lib"}]})

    assert text.splitlines()[:6] == ["📂 /home/u/src", "0. ▶️ start here", "1. app (git)", "2. lib",
                                     "+ more (1)", ".. up"]
    refused = listing_text("laptop", {"path": "/etc", "error": "outside this machine's configured folders"})
    assert refused == "⛔ /etc: outside this machine's configured folders"
