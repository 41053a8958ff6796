"""The test data cache: where it lives, and the tables and positions in it.

One definition shared by the test suite (``tests/conftest.py``), the
benchmarks (``benchmarks/common.py``) and the examples
(``examples/measure.py``); none of it ships in the package.  The cache is
``$PYFATHOM_TEST_CACHE``, else ``~/.cache/pyfathom-tests``.  It holds
python-chess 1.11.2's sdist, fetched once with pip by
:mod:`pyfathom._default_tables` (the code ``pyfathom download`` uses), and
the files taken from it, each checked against a pinned sha256: the 70 table
files and ``endgame.epd`` (positions with expected WDL and DTZ).
"""

from __future__ import annotations

import os
from pathlib import Path

from pyfathom import _default_tables

__all__ = ["CACHE_ENV", "ENDGAME_EPD", "cache_dir", "sdist_archive", "tables_dir"]

CACHE_ENV = "PYFATHOM_TEST_CACHE"
"""The environment variable that moves the cache (CI points it at an empty
directory to measure a cold run)."""

ENDGAME_EPD = "endgame.epd"
"""File name of python-chess's ``data/endgame.epd`` in :func:`tables_dir`."""

ENDGAME_EPD_SHA256 = "0c9c03315a05cdffb1cbbadc8e75f6501dcbd0c92f2751d901deb17e97030d83"
"""sha256 of ``data/endgame.epd`` in python-chess 1.11.2's sdist."""

TABLES_SUBDIR = "syzygy-chess-1.11.2"


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
