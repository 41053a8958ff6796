"""pyfathom._disk.default_tables (and tests/support/table_cache.py over it): the verified
path from python-chess's sdist to tables."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest

from support import table_cache
from pyfathom._disk import default_tables as _default_tables
from pyfathom._disk import filecopy as _filecopy


@pytest.fixture(scope="module")
def archive(test_cache: Path, syzygy_dir: Path) -> Path:
    # syzygy_dir fetched the sdist into the test cache; this must not download.
    return _default_tables.fetch_python_chess_sdist(test_cache)


def test_pinned_checksums_cover_the_35_tables() -> None:
    assert len(_default_tables.TABLE_SHA256) == 70
    stems = {name.rsplit(".", 1)[0] for name in _default_tables.TABLE_SHA256}
    assert len(stems) == 35
    assert {name.rsplit(".", 1)[1] for name in _default_tables.TABLE_SHA256} == {"rtbw", "rtbz"}


def test_syzygy_dir_holds_verified_tables(syzygy_dir: Path) -> None:
    assert _default_tables.files_present(syzygy_dir, table_cache.pinned_members())
    for name, digest in _default_tables.TABLE_SHA256.items():
        assert hashlib.sha256((syzygy_dir / name).read_bytes()).hexdigest() == digest


def test_cached_archive_is_not_downloaded_again(archive: Path, test_cache: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pip(*args: object, **kwargs: object) -> None:
        raise AssertionError("pip must not run when the archive is cached")

    monkeypatch.setattr(subprocess, "run", no_pip)
    assert _default_tables.fetch_python_chess_sdist(test_cache) == archive
    assert _filecopy.sha256_file(archive) == _default_tables.SDIST_SHA256


def test_extract_is_complete_and_idempotent(archive: Path, tmp_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    paths = _default_tables.extract_tables(archive, tmp_path, progress=lambda *a: calls.append(a))
    assert len(paths) == 70 and all(p.parent == tmp_path for p in paths)
    assert sorted(os.listdir(tmp_path)) == sorted(_default_tables.TABLE_SHA256)  # nothing else
    assert [c[1] for c in calls] == list(range(1, 71)) and {c[2] for c in calls} == {70}
    before = {p: p.stat().st_mtime_ns for p in paths}
    # A damaged file is replaced; intact files are left alone.
    damaged = tmp_path / "KQvK.rtbw"
    damaged.write_bytes(b"not a table")
    _default_tables.extract_members(archive, tmp_path, table_cache.pinned_members())
    assert _default_tables.files_present(tmp_path, table_cache.pinned_members())
    for p, mtime in before.items():
        if p != damaged:
            assert p.stat().st_mtime_ns == mtime
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".part")]


def test_wrong_archive_is_refused(tmp_path: Path) -> None:
    """An archive that is not the pinned sdist (here one with a path-traversal
    member) is refused before anything is written."""
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        data = b"x" * 10
        for name in ("../escaped.rtbw", "chess-1.11.2/data/syzygy/regular/KQvK.rtbw"):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    dest = tmp_path / "dest"
    with pytest.raises(_default_tables.ChecksumError, match="sha256"):
        _default_tables.extract_tables(evil, dest)
    assert not (tmp_path / "escaped.rtbw").exists()
    assert list(dest.iterdir()) == []


def test_member_checksum_is_checked(archive: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A table whose bytes differ from the pinned checksum is not kept."""
    pinned = dict(_default_tables.TABLE_SHA256)
    pinned["KRvK.rtbz"] = "0" * 64
    monkeypatch.setattr(_default_tables, "TABLE_SHA256", pinned)
    with pytest.raises(_default_tables.ChecksumError, match="KRvK.rtbz"):
        _default_tables.extract_tables(archive, tmp_path)
    assert not (tmp_path / "KRvK.rtbz").exists()
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".part")]


def test_tables_dir_fetches_nothing_when_present(syzygy_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fetch(*args: object, **kwargs: object) -> Path:
        raise AssertionError("nothing to fetch")

    monkeypatch.setattr(_default_tables, "fetch_python_chess_sdist", no_fetch)
    assert table_cache.tables_dir() == syzygy_dir
