"""Claude's memory tool over Itachi, command by command through `POST /api/memory-tool`: the tool's
answers and error texts, files stored as memories (searchable, trusted as their key allows), and
every path that could leave /memories refused with a 400. Real Postgres, the API over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import RunningApi
from tests.integration.memory.conftest import call

P = "tool-project"
NOTES = "# Notes\n- the API runs on port 8080\n- deploy with make deploy\n- tests: make test"


@pytest.fixture
def tool(api: RunningApi) -> Any:
    api.container.warm_up()

    def run(command: str, project: str = P, key: str | None = None, **fields: Any) -> tuple[int, Any]:
        if key is None:
            return call(api, "POST", "/api/memory-tool", {"project": project, "command": command, **fields})
        other = RunningApi(api.url, key, api.container)
        return call(other, "POST", "/api/memory-tool", {"project": project, "command": command, **fields})

    return run


def ok(answer: tuple[int, Any]) -> str:
    status, body = answer
    assert status == 200, body
    return str(body["result"])


def error(answer: tuple[int, Any], status: int) -> str:
    assert answer[0] == status, answer
    return str(answer[1]["message"])


def test_view_of_an_empty_memory_directory_lists_only_the_directory(tool: Any) -> None:
    assert ok(tool("view", path="/memories")) == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and "
        "node_modules:\n0B\t/memories")


def test_create_then_view_returns_the_file_with_numbered_lines(tool: Any) -> None:
    assert ok(tool("create", path="/memories/notes.md", file_text=NOTES)) == \
        "File created successfully at: /memories/notes.md"
    assert ok(tool("view", path="/memories/notes.md")) == (
        "Here's the content of /memories/notes.md with line numbers:\n"
        "     1\t# Notes\n     2\t- the API runs on port 8080\n     3\t- deploy with make deploy\n"
        "     4\t- tests: make test")
    assert ok(tool("view", path="/memories/notes.md", view_range=[2, 3])) == (
        "Here's the content of /memories/notes.md with line numbers:\n"
        "     2\t- the API runs on port 8080\n     3\t- deploy with make deploy")
    tail = ok(tool("view", path="/memories/notes.md", view_range=[4, -1]))
    assert tail.endswith("     4\t- tests: make test")
    assert "Its first element `9`" in error(tool("view", path="/memories/notes.md", view_range=[9, 10]), 400)


def test_view_of_a_directory_lists_files_two_levels_deep_with_sizes(tool: Any) -> None:
    ok(tool("create", path="/memories/notes.md", file_text=NOTES))
    ok(tool("create", path="/memories/team/style.md", file_text="x" * 2048))
    ok(tool("create", path="/memories/team/deep/er/hidden-depth.md", file_text="y"))
    listing = ok(tool("view", path="/memories"))
    size = len(NOTES.encode())
    assert listing.splitlines()[1:] == [
        "2.1K\t/memories", f"{size}B\t/memories/notes.md", "2.0K\t/memories/team/",
        "1B\t/memories/team/deep/", "2.0K\t/memories/team/style.md"]
    assert ok(tool("view", path="/memories/team")).splitlines()[1] == "2.0K\t/memories/team"


def test_create_refuses_a_file_that_exists(tool: Any) -> None:
    ok(tool("create", path="/memories/a.md", file_text="one"))
    assert error(tool("create", path="/memories/a.md", file_text="two"), 409) == \
        "Error: File /memories/a.md already exists"


def test_two_files_with_the_same_text_stay_two_files(tool: Any) -> None:
    ok(tool("create", path="/memories/a.md", file_text="same text"))
    ok(tool("create", path="/memories/b.md", file_text="same text"))
    assert ok(tool("view", path="/memories/b.md")).endswith("     1\tsame text")
    assert len(ok(tool("view", path="/memories")).splitlines()) == 4


def test_str_replace_edits_the_one_occurrence_and_shows_the_snippet(tool: Any) -> None:
    ok(tool("create", path="/memories/notes.md", file_text=NOTES))
    assert ok(tool("str_replace", path="/memories/notes.md", old_str="port 8080", new_str="port 9090")) == (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        "     1\t# Notes\n     2\t- the API runs on port 9090\n     3\t- deploy with make deploy\n"
        "     4\t- tests: make test")
    assert "port 9090" in ok(tool("view", path="/memories/notes.md"))
    assert error(tool("str_replace", path="/memories/notes.md", old_str="port 8080", new_str="x"), 400) == \
        "No replacement was performed, old_str `port 8080` did not appear verbatim in /memories/notes.md."
    assert error(tool("str_replace", path="/memories/notes.md", old_str="make", new_str="x"), 400) == (
        "No replacement was performed. Multiple occurrences of old_str `make` in lines: 3, 4. "
        "Please ensure it is unique")
    assert error(tool("str_replace", path="/memories/nope.md", old_str="a", new_str="b"), 404) == \
        "Error: The path /memories/nope.md does not exist. Please provide a valid path."


def test_insert_adds_lines_after_the_given_line(tool: Any) -> None:
    ok(tool("create", path="/memories/todo.md", file_text="first\nsecond"))
    assert ok(tool("insert", path="/memories/todo.md", insert_line=1, insert_text="between\n")) == \
        "The file /memories/todo.md has been edited."
    assert ok(tool("insert", path="/memories/todo.md", insert_line=0, insert_text="top")) == \
        "The file /memories/todo.md has been edited."
    assert ok(tool("view", path="/memories/todo.md")).splitlines()[1:] == [
        "     1\ttop", "     2\tfirst", "     3\tbetween", "     4\tsecond"]
    assert error(tool("insert", path="/memories/todo.md", insert_line=9, insert_text="x"), 400) == (
        "Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: "
        "[0, 4]")
    assert error(tool("insert", path="/memories/none.md", insert_line=0, insert_text="x"), 404) == \
        "Error: The path /memories/none.md does not exist"


def test_delete_removes_a_file_or_a_whole_directory(tool: Any) -> None:
    ok(tool("create", path="/memories/keep.md", file_text="kept"))
    ok(tool("create", path="/memories/old/a.md", file_text="a"))
    ok(tool("create", path="/memories/old/b/c.md", file_text="c"))
    assert ok(tool("delete", path="/memories/old")) == "Successfully deleted /memories/old"
    assert ok(tool("delete", path="/memories/keep.md")) == "Successfully deleted /memories/keep.md"
    assert ok(tool("view", path="/memories")).endswith("\n0B\t/memories")
    assert error(tool("delete", path="/memories/keep.md"), 404) == \
        "Error: The path /memories/keep.md does not exist"
    assert error(tool("view", path="/memories/keep.md"), 404) == \
        "The path /memories/keep.md does not exist. Please provide a valid path."
    assert tool("delete", path="/memories")[0] == 400


def test_rename_moves_a_file_or_a_directory_and_refuses_an_existing_destination(tool: Any) -> None:
    ok(tool("create", path="/memories/draft.md", file_text="plan"))
    ok(tool("create", path="/memories/other.md", file_text="other"))
    assert ok(tool("rename", old_path="/memories/draft.md", new_path="/memories/final/plan.md")) == \
        "Successfully renamed /memories/draft.md to /memories/final/plan.md"
    assert ok(tool("view", path="/memories/final/plan.md")).endswith("     1\tplan")
    assert tool("view", path="/memories/draft.md")[0] == 404
    assert ok(tool("rename", old_path="/memories/final", new_path="/memories/archive")) == \
        "Successfully renamed /memories/final to /memories/archive"
    assert ok(tool("view", path="/memories/archive/plan.md")).endswith("     1\tplan")
    taken = tool("rename", old_path="/memories/other.md", new_path="/memories/archive/plan.md")
    assert error(taken, 409) == \
        "Error: The destination /memories/archive/plan.md already exists"
    assert error(tool("rename", old_path="/memories/gone.md", new_path="/memories/x.md"), 404) == \
        "Error: The path /memories/gone.md does not exist"


@pytest.mark.parametrize("path", [
    "/memories/../secrets.md", "/memories/a/../../etc/passwd", "/etc/passwd", "/memoriesX/a.md",
    "memories/a.md", "/memories/a\\..\\b.md", "/memories/%2e%2e/x.md", "/memories/%2E%2E%2Fetc",
    "/memories/%252e%252e/x.md", "/memories/a\u0000.md", "/memories/a%00.md", "/memories/./a.md",
    "/memories//a.md"])
def test_a_path_that_could_leave_memories_is_refused_with_a_400(tool: Any, path: str) -> None:
    for command, fields in (("view", {"path": path}), ("create", {"path": path, "file_text": "x"}),
                            ("delete", {"path": path}),
                            ("rename", {"old_path": "/memories/a.md", "new_path": path})):
        status, body = tool(command, **fields)
        assert status == 400, (command, body)
        assert body["message"]
    assert ok(tool("view", path="/memories")).endswith("\n0B\t/memories")


def test_a_command_without_its_fields_is_a_400_naming_the_field(tool: Any) -> None:
    assert error(tool("create", path="/memories/a.md"), 400).endswith(
        "Parameter `file_text` is required for command: create")
    assert tool("chmod", path="/memories/a.md")[0] == 400


def test_files_are_memories_of_their_project_found_by_search(api: RunningApi, tool: Any) -> None:
    ok(tool("create", path="/memories/deploy.md", file_text="Deploy the billing service with make ship"))
    status, found = call(api, "GET", "/api/memory/search", query="how to deploy billing", project=P,
                         include_global="false")
    assert status == 200
    hit = next(h for h in found["results"] if h["category"] == "memory_file")
    assert hit["metadata"]["memory_path"] == "/memories/deploy.md"
    assert hit["trusted"] is True  # an admin key: a person's application
    assert ok(tool("view", path="/memories", project="another-project")).endswith("\n0B\t/memories")


def test_a_client_key_writes_untrusted_files_and_only_in_its_projects(api: RunningApi, tool: Any) -> None:
    status, created = call(api, "POST", "/api/keys", {"name": "app", "kind": "client", "projects": [P]})
    assert status == 201, created
    key = created["key"]
    ok(tool("create", path="/memories/a.md", file_text="Use the staging database for demos", key=key))
    status, listed = call(api, "GET", "/api/memory/recent", project=P, category="memory_file",
                          include_untrusted="true")
    written = [(m["metadata"]["memory_path"], m["trusted"]) for m in listed["results"]]
    assert written == [("/memories/a.md", False)]
    ok(tool("create", path="/memories/b.md", file_text="Trusted by a person"))
    ok(tool("str_replace", path="/memories/b.md", old_str="person", new_str="key", key=key))
    status, listed = call(api, "GET", "/api/memory/recent", project=P, category="memory_file",
                          include_untrusted="true")
    assert {m["metadata"]["memory_path"]: m["trusted"] for m in listed["results"]} == {
        "/memories/a.md": False, "/memories/b.md": False}
    assert tool("view", path="/memories", project="elsewhere", key=key)[0] == 403
