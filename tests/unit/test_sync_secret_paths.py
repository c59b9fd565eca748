"""A synced file whose path holds a secret is refused: stored redacted, its path would no longer
be the one its envelope authenticates."""

from __future__ import annotations

import pytest

from chalicelib.kernel.errors import InvalidInput
from chalicelib.sync.domain.sync_model import check_item
from tests.support.secret_samples import TOKENS, Sample
from tests.support.sync_contract import item


@pytest.mark.parametrize("sample", TOKENS, ids=[s.kind for s in TOKENS])
def test_a_path_holding_a_secret_is_refused_without_repeating_it(sample: Sample) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_item(item(f"notes/{sample.secret}.md", 0))
    assert refused.value.field == "path" and sample.secret not in str(refused.value)


def test_an_ordinary_path_with_times_and_hashes_in_its_name_is_kept() -> None:
    path = "notes/2024-05-01 12:30 da39a3ee5e6b4b0d3255bfef95601890afd80709.md"
    assert check_item(item(path, 0)).path == path
