"""Session fixtures: the test tables, python-chess's oracle, an open pyfathom.

The 70 table files and ``endgame.epd`` come from python-chess's sdist on PyPI
through ``tests/support/table_cache.py`` (checksums pinned), cached under
``$PYFATHOM_TEST_CACHE`` or ``~/.cache/pyfathom-tests``.  A CI machine starts
with an empty cache and fetches them once per run.

pyfathom is imported inside the fixtures, never guarded: a missing or broken
build makes every test that needs it fail (an ImportError is an error, not a
skip).  The helper modules are in ``tests/support/`` (see its ``__init__``);
the 5-piece tables of ``../shared`` are the :func:`syzygy5_dir` fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import chess.syzygy
import pytest

from support.sanitizer import SANITIZED, SANITIZED_PASS_BESIDE

FIVE_PIECE_FILES = ("KBBvKN.rtbw", "KBBvKN.rtbz", "KRPvKR.rtbw", "KRPvKR.rtbz", "KRRvKR.rtbw")
"""Files of ../shared/syzygy5 that tests name: :func:`syzygy5_dir` checks
them all, so a partial folder skips (or fails in CI) with their name."""


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if SANITIZED:
        _check_sanitized_build()
    for item in items:
        reason = _not_in_this_pass(item)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def _check_sanitized_build() -> None:
    import os

    import pyfathom._core

    build = os.environ.get("PYFATHOM_SANITIZED_BUILD", "")
    if not build or not str(pyfathom._core.__file__).startswith(build):
        raise pytest.UsageError(f"sanitized run, but pyfathom._core comes from "
                                f"{pyfathom._core.__file__}, not from {build!r}")


def _not_in_this_pass(item: Any) -> str | None:
    """Why this pass does not run the test (pyproject.toml's markers), or None.

    The sanitized pass differs from the plain one only in the build of the
    core it imports: a test that never loads that build (``plain_pass_only``)
    would repeat the plain pass's run exactly.  Tests whose programs carry
    their own sanitizers (``sanitizer_programs``) run in whichever pass runs,
    and only in the sanitized one when tests/run_suite.py runs both."""
    if SANITIZED:
        if item.get_closest_marker("measures_memory"):
            return ("measures memory, which ASan's shadow memory and quarantine "
                    "make meaningless; runs in the plain suite")
        mark = item.get_closest_marker("plain_pass_only")
        if mark:
            return f"plain pass only: {mark.args[0]}"
    elif SANITIZED_PASS_BESIDE:
        mark = item.get_closest_marker("sanitizer_programs")
        if mark:
            return f"runs in the sanitized pass beside this one: {mark.args[0]}"
    return None


@pytest.fixture(scope="session")
def test_cache() -> Path:
    """The test cache directory (the tables and the sdist they come from)."""
    from support import table_cache

    return table_cache.cache_dir()


@pytest.fixture(scope="session")
def syzygy_dir(test_cache: Path) -> Path:
    """A directory holding the 70 verified 3-4-piece tables (and endgame.epd)."""
    from support import table_cache

    return table_cache.tables_dir()


@pytest.fixture(scope="session")
def endgame_epd(syzygy_dir: Path) -> Path:
    """python-chess's ``data/endgame.epd``: positions with wdl/dtz opcodes."""
    from support import table_cache

    return syzygy_dir / table_cache.ENDGAME_EPD


@pytest.fixture(scope="session")
def syzygy5_dir() -> Path:
    """``../shared/syzygy5``: the 5-piece tables (a skip naming what is
    missing where the folder or one of :data:`FIVE_PIECE_FILES` is not there)."""
    from support import table_cache

    return table_cache.shared_folder(table_cache.SYZYGY5, *FIVE_PIECE_FILES)


@pytest.fixture(scope="session")
def replay_exes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The fuzz targets linked with tests/fuzz/replay.c under ASan+UBSan,
    built once for the run (the replays of test_hostile_fuzz.py and
    test_hostile_variant_tables.py)."""
    from support import fuzz_build

    return fuzz_build.build_replay(tmp_path_factory.mktemp("replay"))


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
