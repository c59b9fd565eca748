"""Pinning a target's host key: only a fingerprint checked out of band, or an explicit first-use trust.

A key that changed since it was pinned is never re-pinned by `--trust`: that takes the new
`--fingerprint`, checked on the host. The key is also tried for authentication, so a target
that is added works.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.ssh.connection import HostKeyRefused, SshConnectError, connect, presented_fingerprint
from agent.ssh.targets import LocalTarget, load_targets, save_target
from chalicelib.ssh.domain.ssh_model import FINGERPRINT, NAME


class PinRefused(Exception):
    """Nothing was pinned (the message says why and what to do)."""


def pin_target(args: argparse.Namespace, home: Path) -> tuple[LocalTarget, str]:
    if not NAME.match(args.name):
        raise PinRefused("a target name is 1-40 letters, digits, '.', '-' or '_'")
    if args.fingerprint and not FINGERPRINT.match(args.fingerprint):
        raise PinRefused(f"{args.fingerprint} is not a SHA256:... fingerprint as `ssh-keygen -lf` prints it")
    try:
        presented = presented_fingerprint(args.host, args.port)
    except SshConnectError as exc:
        raise PinRefused(str(exc)) from None
    where = f"{args.host}:{args.port}"
    previous = load_targets(home).get(args.name)
    if args.fingerprint:
        if presented != args.fingerprint:
            raise PinRefused(f"{where} presents {presented}, not the {args.fingerprint} you gave; "
                             "nothing pinned")
        note = f"Pinned {presented} (it matches the fingerprint you gave)."
    elif args.trust:
        if previous and previous.fingerprint and previous.fingerprint != presented and \
                (previous.host, previous.port) == (args.host, args.port):
            raise PinRefused(f"host key of {args.name} changed: pinned {previous.fingerprint}, presented "
                             f"{presented}; --trust does not replace a pin: check the host and pass "
                             "--fingerprint")
        note = f"Trusting on first use: pinned {presented} as {where} presents it now."
    else:
        raise PinRefused(f"unknown host {where}: it presents {presented}. Check it on the host "
                         "(ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub) and run again with "
                         f"--fingerprint {presented}, or with --trust to pin it as presented now")
    target = LocalTarget(args.name, args.host, args.port, args.user,
                         str(Path(args.key).expanduser().absolute()) if args.key else None, presented,
                         args.platform, args.machine, tuple(a.strip() for a in args.allow if a.strip()),
                         args.remote_root)
    try:
        connect(target).close()
    except (HostKeyRefused, SshConnectError) as exc:
        raise PinRefused(f"{exc}; nothing pinned") from None
    save_target(home, target)
    return target, f"{args.name}: {args.user}@{where} ({args.platform}). {note}"
