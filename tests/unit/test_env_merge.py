"""Machine-specific .env keys: stripped on push, kept on pull."""

from __future__ import annotations

from agent.sync.env_merge import machine_lines, merge_machine_keys, strip_machine_keys

LOCAL = """# shared
API_URL=https://api.example.com
ITACHI_MACHINE_ID=laptop
export GPU_ID=0
CERT="-----BEGIN-----
abc
-----END-----"
TOKEN=t1
"""


def test_push_strips_the_machine_id_and_configured_keys_with_multi_line_values() -> None:
    stripped = strip_machine_keys(LOCAL, ["GPU_*", "CERT"])
    assert stripped == "# shared\nAPI_URL=https://api.example.com\nTOKEN=t1\n"


def test_pull_keeps_this_machines_own_keys() -> None:
    incoming = "# shared\nAPI_URL=https://new.example.com\nTOKEN=t2\nITACHI_MACHINE_ID=desktop\n"
    merged = merge_machine_keys(incoming, LOCAL, ["GPU_*"])
    assert merged == ("# shared\nAPI_URL=https://new.example.com\nTOKEN=t2\n"
                      "ITACHI_MACHINE_ID=laptop\nexport GPU_ID=0\n")
    assert strip_machine_keys(merged, ["GPU_*"]) == strip_machine_keys(incoming, ["GPU_*"])


def test_a_file_without_a_final_newline_keeps_its_lines_apart() -> None:
    assert merge_machine_keys("A=1", "ITACHI_MACHINE_ID=m", []) == "A=1\nITACHI_MACHINE_ID=m\n"


def test_comments_and_unrelated_lines_pass_through() -> None:
    text = "# ITACHI_MACHINE_ID=not-an-assignment\n\nNOT A LINE\n"
    assert strip_machine_keys(text) == text and machine_lines(text) == []
