"""Table layout, page-cache residency and warming (pyfathom.tables.warm,
``pyfathom warm``), measured on the real 6-piece KBBBBvK in ../shared.

The tests measure copies of their own: the suite's two passes run at once,
and the other pass reads, warms and drops the shared files while this one
counts their resident pages (a count once moved between two looks at it).
"""

from __future__ import annotations

import mmap
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pyfathom import tables

from support.page_drop import drop

SHARED_SIX = Path(__file__).resolve().parent.parent.parent / "shared" / "syzygy6"
NAMES = ["KBBBBvK.rtbw", "KBBBBvK.rtbz"]

pytestmark = pytest.mark.skipif(not all((SHARED_SIX / n).exists() for n in NAMES),
                                reason="../shared/syzygy6 holds no KBBBBvK")


@pytest.fixture(scope="module")
def six(tmp_path_factory) -> Path:
    """A folder of this module's own with copies of the shared KBBBBvK files."""
    folder = tmp_path_factory.mktemp("syzygy6")
    for name in NAMES:
        shutil.copyfile(SHARED_SIX / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def files(six) -> list[Path]:
    return [six / name for name in NAMES]


def resident_by_test(path: Path, offset: int, length: int) -> int:
    """Resident bytes of a range by mincore, through Python's mmap and ctypes."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    page = mmap.PAGESIZE
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as m:
        start = offset // page * page
        vec = (ctypes.c_ubyte * ((offset + length - start + page - 1) // page))()
        arr = (ctypes.c_char * len(m)).from_buffer(m)
        ptr = ctypes.addressof(arr)
        assert libc.mincore(ctypes.c_void_p(ptr + start), ctypes.c_size_t(offset + length - start),
                            vec) == 0
        del arr
        total = 0
        for i, v in enumerate(vec):
            if v & 1:
                lo = start + i * page
                total += min(lo + page, offset + length) - max(lo, offset)
        return total


def test_layout_covers_the_file_in_order(files):
    for path in files:
        parts = tables.layout(path)
        assert parts[0].kind == "header" and parts[0].offset == 0
        ends = [p.offset + p.length for p in parts]
        assert all(a.offset + a.length <= b.offset for a, b in zip(parts, parts[1:]))
        assert max(ends) <= path.stat().st_size
        assert {p.kind for p in parts} == {"header", "sparse index", "block lengths", "data"}


def test_residency_matches_mincore_and_warm_index_makes_index_resident(files):
    for path in files:
        drop(path)
    tables.warm(files, "index")
    for path in files:
        r = tables.residency(path)
        assert r.index_resident == r.index_size > 0
        for part, count in r.by_part:
            assert count == resident_by_test(path, part.offset, part.length)
        assert r.resident == resident_by_test(path, 0, r.size)
    drop(files[1])
    assert tables.residency(files[1]).resident < tables.residency(files[1]).size


def test_warm_all_and_answers_unchanged(six, files):
    import chess
    import pyfathom
    board = chess.Board("8/8/8/8/2K5/8/BBBB4/6k1 w - - 0 1")
    with pyfathom.open_tablebase(str(six)) as tb:
        before = (tb.probe_wdl(board), tb.probe_dtz(board))
    for path in files:
        drop(path)
    seen = []
    tables.warm(files, "all", progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] == sum(p.stat().st_size for p in files)
    assert all(tables.residency(p).fraction == 1.0 for p in files)
    with pyfathom.open_tablebase(str(six)) as tb:
        assert (tb.probe_wdl(board), tb.probe_dtz(board)) == before


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pyfathom", "warm", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_warm_and_errors(six, tmp_path):
    done = run_cli("--tables", str(six), "KBBBBvK", "--what", "index")
    assert done.returncode == 0, done.stderr
    assert "KBBBBvK.rtbw:" in done.stdout and "index parts" in done.stdout and "(100%)" in done.stdout
    for args in (["--what", "nope"], ["--method", "x"], ["KQvKQvK"], ["KRRRRRvK"]):
        bad = run_cli("--tables", str(six), *args)
        assert bad.returncode == 1 and "Traceback" not in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    empty = run_cli("--tables", str(tmp_path))
    assert empty.returncode == 1 and "Traceback" not in empty.stderr
