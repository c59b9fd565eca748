"""The local HTTP server under malformed and stalled clients: always an answer, never a stuck thread."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from chalicelib.bootstrap import Container


@pytest.fixture
def server(container: Container) -> Iterator[tuple[str, int]]:
    from app import app as chalice_app
    from infra.local.api_server import ApiServer

    api = ApiServer(chalice_app, port=0, read_timeout_s=1.0, max_connections=4)
    api.start()
    yield "127.0.0.1", api.port
    api.stop()


def _exchange(address: tuple[str, int], raw: bytes, timeout_s: float = 30) -> bytes:
    with socket.create_connection(address, timeout=timeout_s) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_non_numeric_content_length_is_answered_400(server: tuple[str, int]) -> None:
    answer = _exchange(server, b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400")
    assert b"Content-Length" in answer


def test_a_body_shorter_than_declared_gets_a_408_and_frees_the_connection(server: tuple[str, int]) -> None:
    answer = _exchange(server, b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 408")
    # The thread is free again: a normal request is served.
    assert _exchange(server, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").startswith(
        b"HTTP/1.1 200")


def test_connections_beyond_the_bound_get_an_immediate_503(server: tuple[str, int]) -> None:
    idle = [socket.create_connection(server, timeout=30) for _ in range(4)]
    try:
        for sock in idle:  # each holds a thread mid-request
            sock.sendall(b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
        answer = _exchange(server, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 503")
        assert b"Retry-After" in answer
    finally:
        for sock in idle:
            sock.close()
