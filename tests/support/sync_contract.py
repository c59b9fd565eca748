"""The file sync service's behaviour, run against the in-memory store and against Postgres.

Subclasses provide the `sync` fixture (a FileSync over their store). Envelopes here are
well-formed but random: the server never decrypts, so it cannot tell.
"""

from __future__ import annotations

import os

import pytest

from chalicelib.contracts.sync_envelope import EnvelopeHeader, content_hash
from chalicelib.kernel.errors import InvalidInput
from chalicelib.sync.domain.sync_model import KEEP_VERSIONS, PushItem, SyncConflict
from chalicelib.sync.services.file_sync import FileSync

P = "github.com/me/app"


def envelope(size: int = 40) -> bytes:
    return EnvelopeHeader(100_000, os.urandom(16), os.urandom(12)).pack() + os.urandom(size)


def item(path: str, base: int, blob: bytes | None = None) -> PushItem:
    blob = blob if blob is not None else envelope()
    return PushItem(path, base, blob, content_hash(blob))


class FileSyncContract:
    def test_a_new_file_is_version_one_with_the_hash_of_its_ciphertext(self, sync: FileSync) -> None:
        blob = envelope()
        (stored,) = sync.push(P, "laptop", [item(".env", 0, blob)])
        assert (stored.path, stored.version, stored.machine_id) == (".env", 1, "laptop")
        assert stored.content_hash == content_hash(blob) and stored.size == len(blob)

    def test_a_push_on_an_old_version_is_refused_and_the_newer_one_kept(self, sync: FileSync) -> None:
        sync.push(P, "laptop", [item(".env", 0)])
        newer = envelope()
        sync.push(P, "desktop", [item(".env", 1, newer)])
        with pytest.raises(SyncConflict) as refused:
            sync.push(P, "laptop", [item(".env", 1), item("CLAUDE.md", 0)])
        (stale,) = refused.value.stale
        assert stale.to_json()["current_version"] == 2 and stale.to_json()["machine_id"] == "desktop"
        listing = {v.path: v for v in sync.listing(P)}
        assert list(listing) == [".env"], "nothing of a refused push is stored"
        assert listing[".env"].content_hash == content_hash(newer)

    def test_a_retried_push_is_answered_with_the_version_it_stored(self, sync: FileSync) -> None:
        again = item("notes/a.md", 0)
        first = sync.push(P, "laptop", [again])
        assert sync.push(P, "laptop", [again]) == first
        assert [v.version for v in sync.listing(P)] == [1]

    def test_pull_returns_the_newest_version_of_what_changed_after_the_cursor(self, sync: FileSync) -> None:
        sync.push(P, "a", [item(".env", 0), item("CLAUDE.md", 0)])
        page = sync.pull(P, 0)
        assert sorted(v.path for v in page.files) == [".env", "CLAUDE.md"] and not page.more
        blob = envelope()
        sync.push(P, "b", [item(".env", 1, blob)])
        later = sync.pull(P, page.cursor)
        assert [(v.path, v.version, v.ciphertext) for v in later.files] == [(".env", 2, blob)]
        assert sync.pull(P, later.cursor).files == []

    def test_pull_pages_follow_the_cursor_without_losing_a_file(self, sync: FileSync) -> None:
        sync.push(P, "a", [item(f"notes/{i}.md", 0) for i in range(7)])
        seen, since, more = [], 0, True
        while more:
            page = sync.pull(P, since, limit=3)
            seen += [v.path for v in page.files]
            since, more = page.cursor, page.more
        assert sorted(seen) == sorted(f"notes/{i}.md" for i in range(7))

    def test_forgetting_a_file_stores_a_tombstone_that_pulls_report(self, sync: FileSync) -> None:
        sync.push(P, "a", [item(".env", 0)])
        cursor = sync.pull(P, 0).cursor
        sync.push(P, "b", [PushItem(".env", 1, None)])
        (tomb,) = sync.pull(P, cursor).files
        assert tomb.deleted and tomb.ciphertext is None and tomb.version == 2

    def test_old_versions_are_pruned(self, sync: FileSync) -> None:
        for base in range(KEEP_VERSIONS + 3):
            sync.push(P, "a", [item(".env", base)])
        (latest,) = sync.listing(P)
        assert latest.version == KEEP_VERSIONS + 3

    def test_changes_are_metadata_only_and_empty_at_the_current_cursor(self, sync: FileSync) -> None:
        sync.push(P, "a", [item(".env", 0)])
        page = sync.changes(P, 0)
        assert [v.path for v in page.files] == [".env"] and page.files[0].ciphertext is None
        assert sync.changes(P, page.cursor).files == []

    def test_a_cursor_from_another_database_starts_over(self, sync: FileSync) -> None:
        sync.push(P, "a", [item(".env", 0)])
        assert [v.path for v in sync.pull(P, 10_000).files] == [".env"]

    @pytest.mark.parametrize("bad", [
        PushItem("/etc/passwd", 0, envelope()), PushItem("../x", 0, envelope()),
        PushItem(".git/config", 0, envelope()), PushItem(".env", 0, b"API_KEY=plaintext-is-refused\n" * 3),
        PushItem(".env", 0, envelope(), "0" * 64), PushItem(".env", -1, envelope()),
    ])
    def test_what_is_not_a_relative_path_with_ciphertext_is_refused(self, sync: FileSync,
                                                                    bad: PushItem) -> None:
        with pytest.raises(InvalidInput):
            sync.push(P, "a", [bad])
        assert sync.listing(P) == []
