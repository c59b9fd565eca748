"""AES-256-GCM with a PBKDF2-HMAC-SHA256 key, per file version: the envelope's two halves.

Each encryption draws a fresh 16-byte salt and 12-byte nonce, derives the key from the
passphrase and that salt, and authenticates the header plus the file's project, path and
version as associated data. Key derivation dominates the cost (tens of milliseconds per file
by design), so batches derive on a few threads: OpenSSL releases the GIL while it hashes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from chalicelib.contracts.sync_envelope import (
    HEADER_BYTES,
    ITERATIONS,
    MIN_ITERATIONS,
    NONCE_BYTES,
    SALT_BYTES,
    EnvelopeHeader,
    NotAnEnvelope,
    associated_data,
    parse_header,
)

T = TypeVar("T")
R = TypeVar("R")


class DecryptionFailed(Exception):
    """The envelope did not authenticate: wrong passphrase, or the ciphertext was altered."""


def derive_key(passphrase: bytes, salt: bytes, iterations: int) -> bytes:
    kdf = PBKDF2HMAC(algorithm=hashes.SHA256(), length=32, salt=salt, iterations=iterations)
    return kdf.derive(passphrase)


def encrypt(plaintext: bytes, passphrase: bytes, *, project: str, path: str, version: int,
            iterations: int = ITERATIONS) -> bytes:
    """The envelope of `plaintext` as version `version` of `path` in `project`."""
    if iterations < MIN_ITERATIONS:
        raise ValueError(f"at least {MIN_ITERATIONS} key derivation iterations are required")
    header = EnvelopeHeader(iterations, os.urandom(SALT_BYTES), os.urandom(NONCE_BYTES))
    key = derive_key(passphrase, header.salt, iterations)
    sealed = AESGCM(key).encrypt(header.nonce, plaintext, associated_data(header, project, path, version))
    return header.pack() + sealed


def decrypt(blob: bytes, passphrase: bytes, *, project: str, path: str, version: int) -> bytes:
    """The plaintext of an envelope; DecryptionFailed unless it authenticates as exactly that file."""
    try:
        header = parse_header(blob)
    except NotAnEnvelope as exc:
        raise DecryptionFailed(f"{path}: {exc}") from None
    key = derive_key(passphrase, header.salt, header.iterations)
    try:
        return AESGCM(key).decrypt(header.nonce, blob[HEADER_BYTES:],
                                   associated_data(header, project, path, version))
    except InvalidTag:
        raise DecryptionFailed(f"{path}: authentication failed (wrong passphrase or altered "
                               "ciphertext)") from None


def in_parallel(work: Callable[[T], R], items: Iterable[T], *, threads: int | None = None) -> list[R]:
    """Map `work` over `items` on a few threads (key derivation releases the GIL), in order."""
    listed = list(items)
    workers = threads or min(4, os.cpu_count() or 1)
    if len(listed) < 2 or workers < 2:
        return [work(i) for i in listed]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sync-kdf") as pool:
        return list(pool.map(work, listed))
