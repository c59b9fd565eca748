"""Archives sent to a session: what is refused, what is unpacked, and how a turn names its files."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from agent.engines.definitions import Engine
from chalicelib.contracts import attachments
from chalicelib.contracts.attachments import (
    BadArchive,
    attached_images,
    attachment_note,
    check_archive,
    extract_archive,
)


def zipped(entries: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def tarred(*members: tarfile.TarInfo, content: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for member in members:
            archive.addfile(member, io.BytesIO(content) if member.isfile() else None)
    return buffer.getvalue()


def test_a_zip_whose_entry_climbs_out_is_refused() -> None:
    with pytest.raises(BadArchive, match=r"climbs out"):
        check_archive("a.zip", zipped({"ok.txt": b"1", "../../etc/cron.d/x": b"2"}))


def test_a_zip_with_an_absolute_path_is_refused() -> None:
    with pytest.raises(BadArchive, match="absolute path"):
        check_archive("a.zip", zipped({"/etc/passwd": b"x"}))


def test_a_zip_holding_a_symlink_is_refused() -> None:
    with pytest.raises(BadArchive, match="link"):
        check_archive("a.zip", zipped({}, {"home": "/home"}))


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE])
def test_a_tarball_holding_a_symbolic_or_hard_link_is_refused(kind: bytes) -> None:
    link = tarfile.TarInfo("shadow")
    link.type, link.linkname = kind, "/etc/shadow"
    with pytest.raises(BadArchive, match="link"):
        check_archive("a.tar.gz", tarred(link))


def test_an_archive_with_too_many_entries_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attachments, "MAX_ARCHIVE_FILES", 3)
    with pytest.raises(BadArchive, match="at most 3"):
        check_archive("a.zip", zipped({f"f{i}": b"" for i in range(4)}))


def test_an_archive_that_unpacks_too_big_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attachments, "MAX_ARCHIVE_BYTES", 1000)
    with pytest.raises(BadArchive, match="unpacks to 2000 bytes"):
        check_archive("a.zip", zipped({"zeros": b"\0" * 2000}))  # compresses to a few bytes


def test_a_garbled_archive_is_refused_as_unreadable() -> None:
    with pytest.raises(BadArchive, match="not a readable archive"):
        check_archive("a.tar.gz", b"not a tarball at all")


def test_a_good_tarball_is_unpacked_inside_its_folder(tmp_path: Path) -> None:
    folder, file = tarfile.TarInfo("src"), tarfile.TarInfo("src/main.py")
    folder.type, file.size = tarfile.DIRTYPE, 6
    extract_archive("code.tar.gz", tarred(folder, file, content=b"print\n"), tmp_path / "code")
    assert (tmp_path / "code" / "src" / "main.py").read_bytes() == b"print\n"


def test_each_engine_is_told_of_its_files_the_way_it_reads_them() -> None:
    paths = ["itachi-attachments/shot.png", "itachi-attachments/logs"]
    assert attachment_note(paths, "claude") == f"Attached: {paths[0]}, {paths[1]}"
    assert attachment_note(paths, "gemini") == f"Attached: @{paths[0]}, @{paths[1]}"
    prompt = f"{attachment_note(paths, 'codex')}\n\nwhat is wrong?"
    assert attached_images(prompt) == ["itachi-attachments/shot.png"]
    argv = Engine("codex", ("codex",)).turn_argv(prompt, None)
    assert "--image=itachi-attachments/shot.png" in argv and argv[-1] == prompt
    resumed = Engine("codex", ("codex",)).turn_argv(prompt, "thread-1")
    assert not any(a.startswith("--image") for a in resumed)  # `codex exec resume` takes no images
