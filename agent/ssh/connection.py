"""Connect to a target with paramiko, refusing any host key but the pinned one.

The host key is checked right after the key exchange and before any authentication, so no
credential is ever offered to a host that is not the one pinned. An unknown host (nothing
pinned) and a changed key are refused with both fingerprints in the message.
"""

from __future__ import annotations

import base64
import hashlib
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from agent.ssh.targets import LocalTarget

if TYPE_CHECKING:
    import paramiko

CONNECT_TIMEOUT_S = 15.0


class HostKeyRefused(Exception):
    """The host presented a key that is not the pinned one (or none is pinned)."""

    def __init__(self, message: str, presented: str) -> None:
        super().__init__(message)
        self.presented = presented


class SshConnectError(Exception):
    """The target could not be reached or would not let us in (the message says which)."""


def fingerprint(key: paramiko.PKey) -> str:
    """`SHA256:<base64>` of the key blob, as `ssh-keygen -lf` prints it."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def _transport(host: str, port: int, timeout_s: float) -> paramiko.Transport:
    import paramiko

    try:
        sock = socket.create_connection((host, port), timeout=timeout_s)
    except OSError as exc:
        raise SshConnectError(f"cannot reach {host}:{port}: {exc}") from None
    transport = paramiko.Transport(sock)
    transport.banner_timeout = transport.auth_timeout = timeout_s
    try:
        transport.start_client(timeout=timeout_s)
    except (paramiko.SSHException, OSError) as exc:
        transport.close()
        raise SshConnectError(f"SSH handshake with {host}:{port} failed: {exc}") from None
    return transport


def presented_fingerprint(host: str, port: int, timeout_s: float = CONNECT_TIMEOUT_S) -> str:
    """The fingerprint of the host key a server presents (nothing is authenticated)."""
    transport = _transport(host, port, timeout_s)
    try:
        return fingerprint(transport.get_remote_server_key())
    finally:
        transport.close()


def connect(target: LocalTarget, timeout_s: float = CONNECT_TIMEOUT_S) -> paramiko.Transport:
    """An authenticated transport to the target, whose host key matched its pin."""
    where = f"{target.name} ({target.host}:{target.port})"
    transport = _transport(target.host, target.port, timeout_s)
    try:
        presented = fingerprint(transport.get_remote_server_key())
        if target.fingerprint is None:
            raise HostKeyRefused(
                f"unknown host key for {where}: it presents {presented} and none is pinned; pin it with "
                f"`itachi ssh add {target.name} --fingerprint {presented}` after checking it on the host",
                presented)
        if presented != target.fingerprint:
            raise HostKeyRefused(f"host key of {where} changed: pinned {target.fingerprint}, presented "
                                 f"{presented}; refusing to connect", presented)
        _authenticate(transport, target)
    except BaseException:
        transport.close()
        raise
    return transport


def _authenticate(transport: paramiko.Transport, target: LocalTarget) -> None:
    import paramiko as pm

    try:
        if target.key_path:
            key = pm.PKey.from_path(Path(target.key_path).expanduser())
            transport.auth_publickey(target.user, key)
        else:  # the user's ssh-agent keys, in order
            for agent_key in pm.Agent().get_keys():
                try:
                    transport.auth_publickey(target.user, agent_key)
                    break
                except pm.AuthenticationException:
                    continue
    except (pm.SSHException, OSError) as exc:
        raise SshConnectError(f"authentication as {target.user} on {target.name} failed: {exc}") from None
    if not transport.is_authenticated():
        raise SshConnectError(f"authentication as {target.user} on {target.name} failed: no key was accepted")
