"""SSH on the machine: pinned targets, host-key verification, remote commands and remote tasks.

Private keys and pinned host keys stay on the machine that registered a target; the server
only knows the target's name, address and fingerprint, and routes runs to this machine.
"""
