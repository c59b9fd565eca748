"""The encrypted-file envelope of file sync: its layout, shared by the server and the machines.

Stdlib only. The server never decrypts: it checks that a pushed blob looks like an envelope
(magic, iteration count, sizes) and stores it with the SHA-256 of its bytes. Machines encrypt
and decrypt with `agent/sync/crypto.py`.

Layout (big-endian)::

    magic "ITS1" | iterations u32 | salt 16 B | nonce 12 B | AES-256-GCM ciphertext + 16 B tag

The key is PBKDF2-HMAC-SHA256(passphrase, salt, iterations), 32 bytes, fresh salt and nonce per
file version. The associated data binds the ciphertext to its project, path and version, so a
server cannot swap two files or replay an old version under a new number.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass

MAGIC = b"ITS1"
MIN_ITERATIONS = 100_000
ITERATIONS = 100_000  # the default for new envelopes (ITACHI_SYNC_KDF_ITERATIONS raises it)
SALT_BYTES = 16
NONCE_BYTES = 12
TAG_BYTES = 16
_HEADER = struct.Struct(f">4sI{SALT_BYTES}s{NONCE_BYTES}s")
HEADER_BYTES = _HEADER.size
MAX_PLAINTEXT_BYTES = 512 * 1024  # a pushed file's limit (the API's body limit is 1 MB)
MAX_ENVELOPE_BYTES = HEADER_BYTES + MAX_PLAINTEXT_BYTES + TAG_BYTES


@dataclass(frozen=True)
class EnvelopeHeader:
    iterations: int
    salt: bytes
    nonce: bytes

    def pack(self) -> bytes:
        return _HEADER.pack(MAGIC, self.iterations, self.salt, self.nonce)


class NotAnEnvelope(ValueError):
    """The bytes are not an encrypted sync envelope (plaintext, truncated, or another format)."""


def parse_header(blob: bytes) -> EnvelopeHeader:
    """The envelope's header; raise NotAnEnvelope when the blob cannot be one."""
    if len(blob) < HEADER_BYTES + TAG_BYTES:
        raise NotAnEnvelope("too short to be an encrypted file")
    if len(blob) > MAX_ENVELOPE_BYTES:
        raise NotAnEnvelope(f"larger than {MAX_ENVELOPE_BYTES} bytes")
    magic, iterations, salt, nonce = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise NotAnEnvelope("not an Itachi sync envelope (wrong magic)")
    if iterations < MIN_ITERATIONS or iterations > 10_000_000:
        raise NotAnEnvelope(f"key derivation iterations {iterations} outside {MIN_ITERATIONS}-10000000")
    return EnvelopeHeader(iterations, salt, nonce)


def associated_data(header: EnvelopeHeader, project: str, path: str, version: int) -> bytes:
    """What the tag authenticates besides the ciphertext: the header and the file's identity."""
    identity = "\x00".join(("itachi-sync-v1", project, path, str(int(version)))).encode()
    return header.pack() + identity


def content_hash(blob: bytes) -> str:
    """The hex SHA-256 of the ciphertext envelope (never of the plaintext)."""
    return hashlib.sha256(blob).hexdigest()
