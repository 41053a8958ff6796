"""Where the test tables are: the test data cache, and ``../shared``.

One definition shared by the test suite (``tests/conftest.py``), the
benchmarks (``benchmarks/common.py``) and the examples
(``examples/measure.py``); none of it ships in the package.

``../shared`` beside the repository holds tables too big to commit, read
only: :data:`SYZYGY5` (5-piece tables), :data:`SYZYGY6` (two real 6-piece
tables), :data:`VARIANTS` (atomic, suicide and giveaway tables, see its
README); :func:`shared_folder` finds one or skips naming it.

The cache is
``$PYFATHOM_TEST_CACHE``, else ``~/.cache/pyfathom-tests``.  It holds
python-chess 1.11.2's sdist, fetched once with pip by
:mod:`pyfathom._disk.default_tables` (the code ``pyfathom download`` uses), and
the files taken from it, each checked against a pinned sha256: the 70 table
files and ``endgame.epd`` (positions with expected WDL and DTZ).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from pyfathom._disk import default_tables as _default_tables

__all__ = ["CACHE_ENV", "ENDGAME_EPD", "REQUIRE_ENV", "SHARED", "SYZYGY5", "SYZYGY6",
           "VARIANTS", "cache_dir", "copy_tables", "sdist_archive", "shared_folder", "tables_dir"]

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
"""``../shared`` from the repository root (also from a /work/hNN worktree)."""

SYZYGY5 = SHARED / "syzygy5"
"""The 5-piece tables (with the 3-4-piece ones of :func:`tables_dir`
beside them they make a complete 3-5-piece set for the materials there)."""

SYZYGY6 = SHARED / "syzygy6"
"""Real 6-piece tables: KBBBBvK and KNNNNvK (their README says where they
come from)."""

VARIANTS = SHARED / "syzygy-variants"
"""The variant tables, one folder per variant family."""

REQUIRE_ENV = "PYFATHOM_REQUIRE_VARIANT_TABLES"
"""Set to 1 by ``.ci/run``, which checks that ``../shared`` is there: a
missing 5-piece, 6-piece or variant folder then fails the tests that need it instead
of skipping them."""

CACHE_ENV = "PYFATHOM_TEST_CACHE"
"""The environment variable that moves the cache (CI points it at an empty
directory to measure a cold run)."""

ENDGAME_EPD = "endgame.epd"
"""File name of python-chess's ``data/endgame.epd`` in :func:`tables_dir`."""

ENDGAME_EPD_SHA256 = "0c9c03315a05cdffb1cbbadc8e75f6501dcbd0c92f2751d901deb17e97030d83"
"""sha256 of ``data/endgame.epd`` in python-chess 1.11.2's sdist."""

TABLES_SUBDIR = "syzygy-chess-1.11.2"


def shared_folder(folder: Path, *files: str) -> Path:
    """*folder* (one of ``../shared``), or a skip naming what is missing: the
    folder or the first of *files* not in it (a failure under
    :data:`REQUIRE_ENV`)."""
    missing = folder if not folder.is_dir() else next(
        (folder / name for name in files if not (folder / name).is_file()), None)
    if missing is None:
        return folder
    import pytest

    reason = f"shared test tables not found: {missing} (../shared beside the repository)"
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 requires them")
    pytest.skip(reason)


def copy_tables(src: Path, dest: Path, *names: str) -> Path:
    """A folder ``dest`` (made if need be) holding copies of the table
    files ``names`` of ``src``: a tablebase with only some tables."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copyfile(src / name, dest / name)
    return dest


def cache_dir() -> Path:
    """The cache directory (created if missing)."""
    env = os.environ.get(CACHE_ENV)
    root = Path(env) if env else Path.home() / ".cache" / "pyfathom-tests"
    root.mkdir(parents=True, exist_ok=True)
    return root


def sdist_archive() -> Path:
    """python-chess 1.11.2's verified sdist in the cache (fetched on first use)."""
    return _default_tables.fetch_python_chess_sdist(cache_dir())


def pinned_members() -> dict[str, tuple[str, str]]:
    """The pinned files the tests take from the sdist: the tables and the EPD."""
    members = _default_tables.table_members()
    members[f"{_default_tables.ARCHIVE_TOP}/data/{ENDGAME_EPD}"] = (ENDGAME_EPD, ENDGAME_EPD_SHA256)
    return members


def tables_dir() -> Path:
    """A directory holding the 70 verified 3-4-piece tables and
    ``endgame.epd``; nothing is fetched when they are already there."""
    dest = cache_dir() / TABLES_SUBDIR
    members = pinned_members()
    if not _default_tables.files_present(dest, members):
        _default_tables.extract_members(sdist_archive(), dest, members)
    return dest
