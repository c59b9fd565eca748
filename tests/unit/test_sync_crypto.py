"""The sync envelope: AES-256-GCM under a PBKDF2 key, bound to the file it belongs to."""

from __future__ import annotations

from typing import Any

import pytest

from agent.sync.crypto import DecryptionFailed, decrypt, encrypt, in_parallel
from chalicelib.contracts.sync_envelope import (
    HEADER_BYTES,
    MIN_ITERATIONS,
    NotAnEnvelope,
    content_hash,
    parse_header,
)

PASS = b"correct horse battery staple"
WHERE: dict[str, Any] = {"project": "github.com/me/app", "path": ".env", "version": 3}


def test_a_file_decrypts_to_its_bytes_with_the_same_passphrase_and_identity() -> None:
    blob = encrypt(b"API_KEY=s3cret\n", PASS, **WHERE)
    assert decrypt(blob, PASS, **WHERE) == b"API_KEY=s3cret\n"
    assert b"s3cret" not in blob


def test_each_encryption_draws_its_own_salt_and_nonce() -> None:
    first, second = encrypt(b"same", PASS, **WHERE), encrypt(b"same", PASS, **WHERE)
    h1, h2 = parse_header(first), parse_header(second)
    assert h1.salt != h2.salt and h1.nonce != h2.nonce and content_hash(first) != content_hash(second)
    assert h1.iterations >= MIN_ITERATIONS and len(h1.salt) == 16 and len(h1.nonce) == 12


def test_a_wrong_passphrase_fails_authentication() -> None:
    blob = encrypt(b"x=1\n", PASS, **WHERE)
    with pytest.raises(DecryptionFailed, match="authentication failed"):
        decrypt(blob, b"not the passphrase", **WHERE)


@pytest.mark.parametrize("offset", [4, HEADER_BYTES - 1, HEADER_BYTES, -1])
def test_any_altered_byte_fails_authentication(offset: int) -> None:
    blob = bytearray(encrypt(b"x=1\n", PASS, **WHERE))
    blob[offset] ^= 0x01
    with pytest.raises(DecryptionFailed):
        decrypt(bytes(blob), PASS, **WHERE)


@pytest.mark.parametrize("other", [{"path": "CLAUDE.md"}, {"version": 2}, {"project": "github.com/x/y"}])
def test_ciphertext_moved_to_another_path_version_or_project_fails(other: dict[str, Any]) -> None:
    blob = encrypt(b"x=1\n", PASS, **WHERE)
    with pytest.raises(DecryptionFailed):
        decrypt(blob, PASS, **{**WHERE, **other})


def test_fewer_than_the_minimum_iterations_are_refused() -> None:
    with pytest.raises(ValueError):
        encrypt(b"x", PASS, **WHERE, iterations=MIN_ITERATIONS - 1)


@pytest.mark.parametrize("blob", [b"", b"API_KEY=plaintext\n" * 4, b"ITS1" + b"\x00" * 60])
def test_plaintext_or_a_weak_header_is_not_an_envelope(blob: bytes) -> None:
    with pytest.raises(NotAnEnvelope):
        parse_header(blob)


def test_parallel_work_keeps_the_order() -> None:
    assert in_parallel(lambda n: n * n, range(20), threads=3) == [n * n for n in range(20)]
