"""Two machines syncing through the real API with the real `itachi sync` command."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

import psycopg

from tests.conftest import RunningApi
from tests.support.sync_machines import PROJECT, Machine, make_machine

MARKER = "ITACHI-PLAINTEXT-MARKER-7f3a9c"
ENV = f"API_URL=https://api.example.com\nSECRET_TOKEN={MARKER}\nITACHI_MACHINE_ID=laptop\n"


def _synced_on_both(a: Machine, b: Machine) -> None:
    a.write(".env", ENV)
    assert a.itachi("sync", "push").returncode == 0
    assert b.itachi("sync", "pull").returncode == 0


def test_files_pushed_on_one_machine_arrive_byte_identical_on_the_other(
        machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    files: dict[str, str | bytes] = {
             "CLAUDE.md": "# Rules\nUse yarn.\n", ".claude/settings.json": '{"model": "opus"}\n',
             ".claude/skills/deploy/SKILL.md": "---\nname: deploy\n---\n", "notes/plan.md": f"{MARKER}\n",
             "api/.env.local": "DB=postgres://local\n", "notes/binary.bin": bytes(range(256)) * 4}
    for path, data in files.items():
        a.write(path, data)
    a.write("src/app.py", "print('not synced')\n")

    pushed = a.itachi("sync", "push")
    assert pushed.returncode == 0, pushed.stderr
    assert f"pushed {len(files)}" in pushed.stdout
    pulled = b.itachi("sync", "pull")

    assert pulled.returncode == 0, pulled.stderr
    for path, data in files.items():
        assert b.read(path) == (data.encode() if isinstance(data, str) else data), path
    assert not (b.repo / "src" / "app.py").exists()
    assert stat.S_IMODE((b.repo / "api" / ".env.local").stat().st_mode) == 0o600
    assert b.itachi("sync", "pull").stdout.startswith(f"{PROJECT}: wrote 0")


def test_the_database_holds_ciphertext_only(machines: tuple[Machine, Machine], api: RunningApi) -> None:
    a, b = machines
    _synced_on_both(a, b)
    a.write("notes/secret.md", f"the marker again: {MARKER}\n")
    assert a.itachi("sync", "push").returncode == 0
    plaintexts = [ENV.encode(), b.read(".env"), a.read("notes/secret.md")]
    passphrase = (a.home / ".itachi-key").read_text().strip()

    needles = [MARKER, MARKER.encode().hex(), passphrase, passphrase.encode().hex()]
    needles += [hashlib.sha256(p).hexdigest() for p in plaintexts]
    with psycopg.connect(api.container.settings.database_url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
        dump = "\n".join(str(row[0]) for t in tables
                         for row in conn.execute(f'SELECT t::text FROM "{t}" t').fetchall())
        rows = conn.execute("SELECT count(*) FROM sync_files").fetchone()
    assert rows is not None and rows[0] >= 2
    assert [n for n in needles if n in dump] == []


def test_a_tampered_ciphertext_fails_authentication_and_changes_nothing(
        machines: tuple[Machine, Machine], api: RunningApi) -> None:
    a, b = machines
    _synced_on_both(a, b)
    before, state_before = b.read(".env"), b.state()
    a.write(".env", ENV.replace("api.example.com", "api2.example.com"))
    assert a.itachi("sync", "push").returncode == 0
    with psycopg.connect(api.container.settings.database_url) as conn:  # an attacker with the database
        conn.execute("UPDATE sync_files SET ciphertext = overlay(ciphertext placing '\\x00'::bytea from 60 "
                     "for 1), content_hash = '' WHERE version = 2")
        conn.execute("UPDATE sync_files SET content_hash = encode(sha256(ciphertext), 'hex')"
                     " WHERE version = 2")

    pulled = b.itachi("sync", "pull")

    assert pulled.returncode == 1
    assert "authentication failed" in pulled.stderr and "nothing was written" in pulled.stderr
    assert b.read(".env") == before and b.state() == state_before


def test_a_stale_push_is_refused_and_pull_shows_the_conflict(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    _synced_on_both(a, b)
    a.write(".env", ENV + "FEATURE=on\n")
    assert a.itachi("sync", "push").returncode == 0
    b.write(".env", ENV + "FEATURE=off\n")

    refused = b.itachi("sync", "push")
    shown = b.itachi("sync", "pull")

    assert refused.returncode == 3
    assert "conflict: .env changed here and on laptop (version 2)" in refused.stdout
    assert shown.returncode == 3 and "itachi sync pull --theirs .env" in shown.stdout
    assert b"FEATURE=off" in b.read(".env"), "the local edit is never overwritten"
    assert "conflict" in b.itachi("sync", "status").stdout
    listed = a.itachi("sync", "files").stdout
    assert ".env  v2" in listed and "from laptop" in listed, "the newer version is kept"

    taken = b.itachi("sync", "pull", "--theirs", ".env")
    assert taken.returncode == 0, taken.stdout
    assert b"FEATURE=on" in b.read(".env")
    b.write(".env", ENV + "FEATURE=both\n")
    assert b.itachi("sync", "push").returncode == 0


def test_keeping_mine_pushes_over_the_newer_version(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    _synced_on_both(a, b)
    a.write("CLAUDE.md", "from a\n")
    assert a.itachi("sync", "push").returncode == 0
    b.write("CLAUDE.md", "from b\n")
    assert b.itachi("sync", "push").returncode == 3

    assert b.itachi("sync", "push", "--mine", "CLAUDE.md").returncode == 0
    assert a.itachi("sync", "pull").returncode == 0
    assert a.read("CLAUDE.md") == b"from b\n"


def test_machine_specific_keys_stay_on_their_machine(machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    b.write(".env", "ITACHI_MACHINE_ID=desktop\nGPU_ID=1\n")  # only this machine's own keys so far
    a.write(".env", ENV + "GPU_ID=0\n")
    assert a.itachi("sync", "push", ITACHI_SYNC_MACHINE_KEYS="GPU_ID").returncode == 0

    assert b.itachi("sync", "pull", ITACHI_SYNC_MACHINE_KEYS="GPU_ID").returncode == 0

    text = b.read(".env").decode()
    assert f"SECRET_TOKEN={MARKER}" in text and "API_URL=https://api.example.com" in text
    assert "ITACHI_MACHINE_ID=desktop" in text and "GPU_ID=1" in text
    assert "laptop" not in text and "GPU_ID=0" not in text
    assert "pushed 0" in b.itachi("sync", "push", ITACHI_SYNC_MACHINE_KEYS="GPU_ID").stdout


def test_a_wrong_passphrase_is_a_clear_error_and_leaves_files_untouched(
        tmp_path: Path, api: RunningApi) -> None:
    a = make_machine(tmp_path, "laptop", api.url, api.key)
    c = make_machine(tmp_path, "stranger", api.url, api.key)
    assert a.itachi("sync", "init").returncode == 0
    assert c.itachi("sync", "init", "--stdin", stdin="a different passphrase entirely\n").returncode == 0
    a.write(".env", ENV)
    a.write("CLAUDE.md", "rules\n")
    assert a.itachi("sync", "push").returncode == 0
    c.write(".env", "MINE=1\n")

    pulled = c.itachi("sync", "pull")

    assert pulled.returncode == 1
    assert "2 file(s) could not be decrypted; nothing was written" in pulled.stderr
    assert "same passphrase" in pulled.stderr
    assert c.read(".env") == b"MINE=1\n" and not (c.repo / "CLAUDE.md").exists()


def test_without_a_key_file_sync_says_how_to_create_one(tmp_path: Path, api: RunningApi) -> None:
    a = make_machine(tmp_path, "laptop", api.url, api.key)
    refused = a.itachi("sync", "push")
    assert refused.returncode == 1 and "run `itachi sync init`" in refused.stderr
    assert a.itachi("sync", "init").returncode == 0
    assert stat.S_IMODE((a.home / ".itachi-key").stat().st_mode) == 0o600
    (a.home / ".itachi-key").chmod(0o644)
    assert "chmod 600" in a.itachi("sync", "push").stderr


def test_forgetting_a_file_stops_its_sync_everywhere_and_keeps_local_copies(
        machines: tuple[Machine, Machine]) -> None:
    a, b = machines
    _synced_on_both(a, b)

    forgot = a.itachi("sync", "forget", ".env")
    assert forgot.returncode == 0 and "no longer syncs on every machine" in forgot.stdout
    pulled = b.itachi("sync", "pull")

    assert "forgotten elsewhere, local copy kept): .env" in pulled.stdout
    assert b.read(".env") == ENV.replace("ITACHI_MACHINE_ID=laptop\n", "").encode()
    b.write(".env", "CHANGED=1\n")
    assert "pushed 0" in b.itachi("sync", "push").stdout
