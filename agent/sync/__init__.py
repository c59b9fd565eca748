"""End-to-end encrypted file sync on the machine: keys, encryption, local state, push and pull.

Everything that touches plaintext or the passphrase lives here, on the user's machine; the
server only ever receives ciphertext (`chalicelib/contracts/sync_envelope.py`).
"""
