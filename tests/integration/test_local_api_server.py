"""The local HTTP server under malformed, stalled and slow clients: always an answer, never a stuck
thread, and health and the agent's routes served while the rest of the server is busy."""

from __future__ import annotations

import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from chalice import Chalice

from chalicelib.bootstrap import Container
from infra.local.api_server import ApiServer

Address = tuple[str, int]


@pytest.fixture
def server(container: Container) -> Iterator[Address]:
    from app import app as chalice_app

    api = ApiServer(chalice_app, port=0, header_timeout_s=30.0, body_timeout_s=1.0, max_readers_per_client=64)
    api.start()
    yield "127.0.0.1", api.port
    api.stop()


def _exchange(address: Address, raw: bytes, timeout_s: float = 30) -> bytes:
    with socket.create_connection(address, timeout=timeout_s) as sock:
        sock.sendall(raw)
        return _read_all(sock)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _health(address: Address) -> bytes:
    return _exchange(address, b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout_s=10)


def test_a_non_numeric_content_length_is_answered_400(server: Address) -> None:
    answer = _exchange(server, b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n{}")
    assert answer.startswith(b"HTTP/1.1 400")
    assert b"Content-Length" in answer


def test_an_empty_content_length_is_answered_400_even_on_health(server: Address) -> None:
    answer = _exchange(server, b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", timeout_s=10)
    assert answer.startswith(b"HTTP/1.1 400")
    assert b"Content-Length" in answer


def test_an_unsupported_method_is_answered_405_with_the_methods_allowed(server: Address) -> None:
    answer = _exchange(server, b"TRACE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 10)
    head = answer.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 405")
    assert b"\r\nallow: get" in head


def test_a_body_shorter_than_declared_gets_a_408_and_frees_the_connection(server: Address) -> None:
    answer = _exchange(server, b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 408")
    assert _health(server).startswith(b"HTTP/1.1 200")


def test_a_body_trickled_byte_by_byte_gets_a_408_at_the_body_deadline(server: Address) -> None:
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        answered = threading.Event()

        def trickle() -> None:  # each byte well inside any per-read timeout, the whole body never
            while not answered.wait(0.2):
                try:
                    sock.send(b" ")
                except OSError:
                    return

        started = time.monotonic()
        trickler = threading.Thread(target=trickle, daemon=True)
        trickler.start()
        try:
            answer = sock.recv(65536)
        finally:
            answered.set()
            trickler.join()
        assert answer.startswith(b"HTTP/1.1 408")
        assert time.monotonic() - started < 8  # the 1 s body deadline, with room for a loaded box


def test_health_answers_promptly_while_128_clients_trickle_their_headers(server: Address) -> None:
    slow = [socket.create_connection(server, timeout=30) for _ in range(128)]
    try:
        for sock in slow:  # a request line and one header, the rest never comes
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        answer = _health(server)
        assert answer.startswith(b"HTTP/1.1 200")
        assert time.monotonic() - started < 5
    finally:
        for sock in slow:
            sock.close()


def test_a_clients_slowest_readers_are_cut_off_oldest_first_beyond_its_cap(container: Container) -> None:
    from app import app as chalice_app

    api = ApiServer(chalice_app, port=0, header_timeout_s=30.0, max_readers_per_client=4)
    api.start()
    address = ("127.0.0.1", api.port)
    slow: list[socket.socket] = []
    try:
        for _ in range(6):  # in order: the first ones are the oldest
            slow.append(socket.create_connection(address, timeout=10))
            slow[-1].sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            time.sleep(0.05)
        assert _health(address).startswith(b"HTTP/1.1 200")
        for sock in slow[:3]:  # the fifth, the sixth and the health check each cut off one
            assert _read_all(sock).startswith(b"HTTP/1.1 503")
    finally:
        for sock in slow:
            sock.close()
        api.stop()


def _busy_app(release: threading.Event, entered: threading.Semaphore) -> Chalice:
    app = Chalice(app_name="busy-server-test")

    @app.route("/slow")
    def slow() -> dict[str, bool]:
        entered.release()
        return {"released": release.wait(60)}

    @app.route("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.route("/api/machines/heartbeat", methods=["POST"])
    def heartbeat() -> dict[str, bool]:
        return {"recorded": True}

    return app


def _status(url: str, method: str = "GET") -> int:
    request = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        assert error.code != 503 or error.headers.get("Retry-After") == "1"
        return error.code


def test_health_and_the_agents_heartbeat_are_served_while_every_worker_is_busy() -> None:
    release, entered = threading.Event(), threading.Semaphore(0)
    api = ApiServer(_busy_app(release, entered), port=0, max_workers=2, reserved_workers=2)
    api.start()
    holders = [threading.Thread(target=_status, args=(api.url + "/slow",)) for _ in range(2)]
    try:
        for holder in holders:
            holder.start()
        for _ in holders:
            assert entered.acquire(timeout=10)
        assert _status(api.url + "/slow") == 503
        assert _status(api.url + "/health") == 200
        assert _status(api.url + "/api/machines/heartbeat", "POST") == 200
    finally:
        release.set()
        for holder in holders:
            holder.join()
        api.stop()
