"""Slow clients against a fresh `itachi up`: does health, and the agent's heartbeat, still answer?

Holds `--headers` connections that send a request line, then one header line every
`--header-every` seconds, and `--bodies` connections that declare a body and send one byte of it
every `--body-every` seconds; a connection the server closes is opened again after
`--reconnect-after` seconds (1: as the server's `Retry-After` asks; 0: at once), for
`--seconds`. Meanwhile it asks `/health` and `POST /api/machines/heartbeat` every half second.
Prints what the slow connections were answered (408, 503, closed with no answer) and the status
and latency of every health and heartbeat request, counting those with no answer at all.

    python -m bench.slow_clients --headers 128 --bodies 16 --seconds 60
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field

from bench.memory_api import ItachiServer

NO_ANSWER = "no answer"


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    slow: Counter[str] = field(default_factory=Counter)  # how each slow connection ended, by kind
    probes: dict[str, Counter[str]] = field(default_factory=dict)  # route: status or "no answer"
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)

    def count_slow(self, outcome: str) -> None:
        with self.lock:
            self.slow[outcome] += 1

    def count_probe(self, route: str, outcome: str, ms: float) -> None:
        with self.lock:
            self.probes.setdefault(route, Counter())[outcome] += 1
            self.latencies_ms.setdefault(route, []).append(ms)


def _status_line(answer: bytes) -> str:
    return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else NO_ANSWER


def slow_connection(address: tuple[str, int], body: bool, every_s: float, pause_s: float, until: float,
                    tally: Tally) -> None:
    """One slow client: trickle a request until the server answers or closes, then start over."""
    head = (b"POST /api/memory HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n" if body else b"GET /health HTTP/1.1\r\nHost: x\r\n")
    while time.monotonic() < until:
        try:
            with socket.create_connection(address, timeout=5) as sock:
                sock.sendall(head)
                outcome = _trickle(sock, b" " if body else b"X-Slow: 1\r\n", every_s, until)
        except OSError:
            outcome = "could not connect"
        tally.count_slow(f"{'body' if body else 'headers'} {outcome}")
        time.sleep(pause_s)


def _trickle(sock: socket.socket, piece: bytes, every_s: float, until: float) -> str:
    sock.settimeout(every_s)
    while time.monotonic() < until:
        try:
            answer = sock.recv(4096)
        except TimeoutError:
            try:
                sock.sendall(piece)
            except OSError:
                return NO_ANSWER
            continue
        except OSError:
            return NO_ANSWER
        return _status_line(answer)
    return "open at the end"


def probe(url: str, route: str, key: str, until: float, tally: Tally) -> None:
    method, path = route.split(" ", 1)
    data = b'{"machine_id": "slow-clients-box", "agent_instance": "probe"}' if method == "POST" else None
    while time.monotonic() < until:
        request = urllib.request.Request(url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                outcome = str(response.status)
        except urllib.error.HTTPError as error:
            outcome = str(error.code)
        except OSError:
            outcome = NO_ANSWER
        tally.count_probe(route, outcome, (time.monotonic() - started) * 1000)
        time.sleep(0.5)


def run(url: str, key: str, *, headers: int, bodies: int, header_every_s: float, body_every_s: float,
        pause_s: float, seconds: float) -> Tally:
    host, port = url.removeprefix("http://").split(":")
    address, tally, until = (host, int(port)), Tally(), time.monotonic() + seconds
    threads = [threading.Thread(target=slow_connection, args=(address, body, every_s, pause_s, until, tally))
               for body, count, every_s in ((False, headers, header_every_s), (True, bodies, body_every_s))
               for _ in range(count)]
    threads += [threading.Thread(target=probe, args=(url, route, key, until, tally))
                for route in ("GET /health", "POST /api/machines/heartbeat")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def report(tally: Tally) -> str:
    lines = ["slow connections ended: " + ", ".join(f"{k}: {n}" for k, n in sorted(tally.slow.items()))]
    for route, outcomes in tally.probes.items():
        times = sorted(tally.latencies_ms[route])
        p95 = times[int(0.95 * (len(times) - 1))]
        lines.append(f"{route}: " + ", ".join(f"{k}: {n}" for k, n in sorted(outcomes.items()))
                     + f"; latency median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms, "
                     f"max {times[-1]:.0f} ms")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--headers", type=int, default=128, help="slow-header connections")
    parser.add_argument("--bodies", type=int, default=16, help="slow-body connections")
    parser.add_argument("--header-every", type=float, default=10.0, help="seconds between header lines")
    parser.add_argument("--body-every", type=float, default=4.0, help="seconds between body bytes")
    parser.add_argument("--reconnect-after", type=float, default=1.0, help="seconds before reopening")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to keep it up")
    args = parser.parse_args()
    server = ItachiServer().start()
    try:
        tally = run(server.url, server.key, headers=args.headers, bodies=args.bodies,
                    header_every_s=args.header_every, body_every_s=args.body_every,
                    pause_s=args.reconnect_after, seconds=args.seconds)
    finally:
        server.stop()
    print(report(tally))
    missing = sum(outcomes[NO_ANSWER] for outcomes in tally.probes.values())
    failed = sum(n for outcomes in tally.probes.values() for k, n in outcomes.items() if k != "200")
    return 1 if missing or failed else 0


if __name__ == "__main__":
    sys.exit(main())
