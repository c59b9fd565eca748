"""The socket HTTP client's response parsing: lengths, chunked bodies and garbage."""

from __future__ import annotations

import pytest

from chalicelib.contracts.plain_http import parse


def test_a_body_is_cut_at_its_content_length() -> None:
    raw = (b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n"
           b'{"a":1}trailing')
    assert parse(raw) == (201, b'{"a":1}')


def test_a_chunked_body_is_reassembled() -> None:
    raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"4\r\n{\"a\"\r\n3;ext=1\r\n:12\r\n1\r\n}\r\n0\r\n\r\n")
    assert parse(raw) == (200, b'{"a":12}')


def test_a_body_without_a_length_runs_to_the_end() -> None:
    assert parse(b"HTTP/1.0 404 Not Found\r\nServer: x\r\n\r\nmissing") == (404, b"missing")


@pytest.mark.parametrize("raw", [b"", b"HTTP/1.1 200 OK\r\nContent-Length: 9", b"SSH-2.0-OpenSSH\r\n\r\n",
                                 b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
                                 b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"])
def test_a_garbled_or_truncated_answer_is_a_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        parse(raw)
