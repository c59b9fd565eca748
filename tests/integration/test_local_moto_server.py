"""The local SQS endpoint: a moto server whose port was taken before it bound it is started again."""

from __future__ import annotations

import socket

from infra.local.moto_server import spawn_moto, wait_for_moto
from infra.local.processes import http_ok, stop


def test_a_moto_server_whose_port_was_taken_is_started_again_on_a_free_one() -> None:
    with socket.socket() as taken:  # another process got the free port first
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        first, endpoint = spawn_moto(port)

        proc, ready = wait_for_moto(first, endpoint)

    try:
        assert first.poll() is not None  # the first could not bind its port and exited
        assert proc is not first and ready != endpoint and http_ok(f"{ready}/moto-api/")
    finally:
        stop(proc)
