"""Steady write load on the API from a few threads, recording every answer (for fault tests)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlparse


@dataclass(frozen=True)
class Answer:
    status: int  # 0: no answer (connection error or client timeout)
    elapsed_s: float
    started: float
    memory_id: str | None = None
    retry_after: str | None = None


@dataclass
class WriteLoad:
    """`threads` writers POST distinct memories until `stop()`; `answers` holds every outcome."""

    url: str
    api_key: str
    threads: int = 4
    client_timeout_s: float = 30.0
    answers: list[Answer] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _workers: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for n in range(self.threads):
            worker = threading.Thread(target=self._write, args=(n,), daemon=True)
            worker.start()
            self._workers.append(worker)

    def stop(self) -> list[Answer]:
        self._stop.set()
        for worker in self._workers:
            worker.join(self.client_timeout_s + 5)
        return list(self.answers)

    def count(self, status: int, after: float = 0.0) -> int:
        with self._lock:
            return sum(1 for a in self.answers if a.status == status and a.started >= after)

    def _write(self, n: int) -> None:
        target = urlparse(self.url)
        seq = 0
        while not self._stop.is_set():
            seq += 1
            body = json.dumps({"project": "outage", "category": "fact",
                               "content": f"writer {n} note {seq}: the outage test wrote this"})
            started = time.monotonic()
            conn = http.client.HTTPConnection(target.hostname or "127.0.0.1", target.port,
                                              timeout=self.client_timeout_s)
            try:
                conn.request("POST", "/api/memory", body=body, headers={
                    "Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"})
                resp = conn.getresponse()
                raw = resp.read()
                answer = Answer(resp.status, time.monotonic() - started, started,
                                json.loads(raw).get("id") if resp.status == 201 else None,
                                resp.getheader("Retry-After"))
            except (OSError, http.client.HTTPException, ValueError):
                answer = Answer(0, time.monotonic() - started, started)
            finally:
                conn.close()
            with self._lock:
                self.answers.append(answer)
            if answer.status != 201:
                self._stop.wait(0.05)
