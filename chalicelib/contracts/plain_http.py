"""One HTTP/1.1 exchange over a plain socket: the API client's path for `http://` URLs.

`http.client` pulls in the `email` package to parse headers, and `ssl`, which together cost a
hook process tens of milliseconds of imports before it sends a byte (`python -X importtime`,
docs/benchmarks.md); a hook talking to the local API needs neither. The request always says
`Connection: close`, so the answer is everything the server sends until it closes: a status
line, headers, and a body read by `Content-Length`, chunked transfer coding, or to the end.
"""

from __future__ import annotations

import socket
import time

MAX_HEAD = 64 * 1024


def exchange(host: str, port: int, method: str, target: str, data: bytes | None, headers: dict[str, str],
             timeout_s: float) -> tuple[int, bytes]:
    """(status, body) of one request; OSError when unreachable or late, ValueError when garbled."""
    deadline = time.monotonic() + timeout_s
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}", "Connection: close",
             *(f"{k}: {v}" for k, v in headers.items() if k.lower() not in ("host", "connection"))]
    if data is not None or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(data or b'')}")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (data or b"")
    # An ASCII host goes to getaddrinfo as bytes: a str is encoded with the `idna` codec, whose
    # import (encodings.idna, stringprep) costs a hook process about 2 ms before it connects.
    # (getaddrinfo takes bytes; the stubs of create_connection only say str.)
    address = host.encode("ascii") if host.isascii() else host
    with socket.create_connection((address, port), timeout=timeout_s) as sock:  # type: ignore[arg-type]
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        received = bytearray()
        while True:
            sock.settimeout(max(0.001, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    return parse(bytes(received))


def parse(raw: bytes) -> tuple[int, bytes]:
    head, separator, body = raw.partition(b"\r\n\r\n")
    if not separator or len(head) > MAX_HEAD:
        raise ValueError("incomplete HTTP response")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ValueError(f"not an HTTP status line: {status_line[:80]!r}")
    fields = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    if "chunked" in fields.get("transfer-encoding", "").lower():
        return int(parts[1]), _dechunk(body)
    length = fields.get("content-length")
    if length is not None:
        if not length.isdigit() or len(body) < int(length):
            raise ValueError("HTTP body shorter than its Content-Length")
        body = body[:int(length)]
    return int(parts[1]), body


def _dechunk(body: bytes) -> bytes:
    out, position = bytearray(), 0
    while True:
        end = body.find(b"\r\n", position)
        if end < 0:
            raise ValueError("truncated chunked body")
        size = int(body[position:end].split(b";", 1)[0], 16)
        if size == 0:
            return bytes(out)
        out += body[end + 2:end + 2 + size]
        position = end + 2 + size + 2
