"""The Promote to <namespace> buttons' callback data: within Telegram's 64 bytes, read back exactly."""

from __future__ import annotations

import uuid

import pytest

from chalicelib.telegram.domain.rule_buttons import button_data, namespace_named, parse_button

pytestmark = pytest.mark.unit
RULE = str(uuid.UUID(int=42))


def test_the_longest_namespace_name_fits_in_64_bytes_and_is_found_again_from_its_cut() -> None:
    longest, sibling = "a" * 63, "a" * 62 + "b"
    data = button_data(RULE, longest)
    parsed = parse_button(data)

    assert len(data.encode()) == 64 and parsed is not None and parsed[0] == RULE
    assert namespace_named(parsed[1], ["acme", longest]) == longest
    assert namespace_named(parsed[1], ["acme", longest, sibling]) is None  # the cut names two: refused


def test_a_short_name_travels_whole_and_names_only_itself() -> None:
    parsed = parse_button(button_data(RULE, "acme"))

    assert parsed == (RULE, "acme")
    assert namespace_named("acme", ["acme-web", "beta"]) is None


@pytest.mark.parametrize("data", ["gc:x:new", "rp:notahexid:acme", f"rp:{uuid.UUID(int=7).hex}:Acme",
                                  f"rp:{uuid.UUID(int=7).hex}:{'a' * 29}", f"rp:{uuid.UUID(int=7).hex}:"])
def test_data_that_is_not_a_promote_button_is_none(data: str) -> None:
    assert parse_button(data) is None
