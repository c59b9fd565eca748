"""Shared by the memory benchmarks: run `itachi up` in a throwaway home and talk to its API.

The server is a separate process (as in use), started with `itachi up --port 0 --no-agent`;
`restart` keeps the home (and so the database) and applies new environment settings, which
is how the benchmarks compare search weights on the same data.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
READY = "Itachi API ready on "


class ItachiServer:
    def __init__(self, home: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.home = home or Path(tempfile.mkdtemp(prefix="itachi-bench-"))
        self._own_home = home is None
        self.env = env or {}
        self.url = ""
        self.key = ""
        self._proc: subprocess.Popen[str] | None = None

    def start(self, timeout_s: float = 180) -> ItachiServer:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        env.pop("DATABASE_URL", None)
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", "up", "--home", str(self.home), "--port", "0", "--no-agent"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self._proc.stdout is not None
        started, seen = time.monotonic(), []
        while time.monotonic() - started < timeout_s:
            line = self._proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if READY in line:
                self.url = line.split(READY, 1)[1].strip()
                self.key = json.loads((self.home / "config.json").read_text())["api_key"]
                threading.Thread(target=self._drain, daemon=True).start()
                self._wait_for_model(started + timeout_s)
                return self
        self.stop()
        raise RuntimeError("itachi up did not become ready:\n" + "".join(seen[-30:]))

    def _wait_for_model(self, deadline: float) -> None:
        """The ready line comes before the embedding model is loaded (searches meanwhile answer from
        full text): the benchmarks measure the loaded server, so wait for it."""
        client = self.client()
        while time.monotonic() < deadline:
            answer = client.search("warm up", "_bench_warm_up", 1)
            if answer.get("degraded") != "embedding_loading":
                return
            time.sleep(0.2)
        raise RuntimeError("the embedding model did not load in time")

    def _drain(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for _ in self._proc.stdout:
            pass

    def restart(self, env: dict[str, str]) -> ItachiServer:
        self.stop(keep_home=True)
        self.env = env
        return self.start()

    def stop(self, keep_home: bool = False) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        self._proc = None
        if self._own_home and not keep_home:
            shutil.rmtree(self.home, ignore_errors=True)

    def client(self) -> ApiClient:
        return ApiClient(self.url, self.key)


class ApiClient:
    """A JSON client; `last_ms` is the wall time of the last request, connection included.

    One connection per request, as the hooks do. (A kept-alive connection to the local
    server waits about 40 ms per response: the server writes headers and body separately
    without TCP_NODELAY, and the client delays its ACK.)
    """

    def __init__(self, url: str, key: str) -> None:
        parsed = urllib.parse.urlparse(url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 80
        self._headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                         "Connection": "close"}
        self.last_ms = 0.0

    def call(self, method: str, path: str, body: Any = None, **query: Any) -> Any:
        params = {k: v for k, v in query.items() if v is not None}
        target = path + (f"?{urllib.parse.urlencode(params)}" if params else "")
        payload = json.dumps(body).encode() if body is not None else None
        started = time.perf_counter()
        conn = http.client.HTTPConnection(self._host, self._port, timeout=300)
        try:
            conn.request(method, target, body=payload, headers=self._headers)
            response = conn.getresponse()
            raw = response.read()
        finally:
            conn.close()
        self.last_ms = (time.perf_counter() - started) * 1000
        if response.status >= 400:
            raise RuntimeError(f"{method} {path}: {response.status} {raw[:300]!r}")
        return json.loads(raw) if raw else None

    def search(self, query: str, project: str, limit: int, mode: str = "hybrid",
               include_global: bool = True) -> dict[str, Any]:
        return self.call("GET", "/api/memory/search", query=query, project=project, limit=limit, mode=mode,
                         include_global=None if include_global else "false")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]
