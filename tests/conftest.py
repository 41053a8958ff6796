"""Session fixtures: the test tables, python-chess's oracle, an open pyfathom.

The 70 table files and ``endgame.epd`` come from python-chess's sdist on PyPI
through ``tests/table_cache.py`` (checksums pinned), cached under
``$PYFATHOM_TEST_CACHE`` or ``~/.cache/pyfathom-tests``.  A CI machine starts
with an empty cache and fetches them once per run.

pyfathom is imported inside the fixtures, never guarded: a missing or broken
build makes every test that needs it fail (an ImportError is an error, not a
skip).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.syzygy
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# Set by tests/run_sanitized.py: this run imports the ASan+UBSan build of the
# core, with the ASan runtime preloaded (LD_PRELOAD) into every Python process.
SANITIZED = os.environ.get("PYFATHOM_SANITIZED") == "1"


def native_env(**extra: str) -> dict[str, str]:
    """Environment for a child that is a native program built with its own
    sanitizer (TSan, libFuzzer): without the ASan preload of a sanitized run."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    env.update(extra)
    return env


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if not SANITIZED:
        return
    import pyfathom._core

    build = os.environ.get("PYFATHOM_SANITIZED_BUILD", "")
    if not build or not str(pyfathom._core.__file__).startswith(build):
        raise pytest.UsageError(f"sanitized run, but pyfathom._core comes from "
                                f"{pyfathom._core.__file__}, not from {build!r}")
    skip = pytest.mark.skip(reason="measures memory, which ASan's shadow memory and "
                                   "quarantine make meaningless; runs in the plain suite")
    for item in items:
        if item.get_closest_marker("measures_memory"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def test_cache() -> Path:
    """The test cache directory (the tables and the sdist they come from)."""
    import table_cache

    return table_cache.cache_dir()


@pytest.fixture(scope="session")
def syzygy_dir(test_cache: Path) -> Path:
    """A directory holding the 70 verified 3-4-piece tables (and endgame.epd)."""
    import table_cache

    return table_cache.tables_dir()


@pytest.fixture(scope="session")
def endgame_epd(syzygy_dir: Path) -> Path:
    """python-chess's ``data/endgame.epd``: positions with wdl/dtz opcodes."""
    import table_cache

    return syzygy_dir / table_cache.ENDGAME_EPD


@pytest.fixture(scope="session")
def tablebase(syzygy_dir: Path) -> Iterator[Any]:
    """A pyfathom Tablebase over all 35 test tables, closed after the session."""
    import pyfathom

    tb = pyfathom.open_tablebase(syzygy_dir)
    try:
        yield tb
    finally:
        tb.close()


@pytest.fixture(scope="session")
def oracle(syzygy_dir: Path) -> Iterator[chess.syzygy.Tablebase]:
    """python-chess's prober on the same directory: the source of truth."""
    tb = chess.syzygy.open_tablebase(str(syzygy_dir))
    try:
        yield tb
    finally:
        tb.close()
