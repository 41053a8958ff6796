"""Batch read-ahead on cold tables (issue 41, "reads ahead";
src/fathom/batch/tb_read_ahead.c).

Each run is a fresh process (``tests/support/cold_batch.py``) that opens
the tables after every table file's pages were dropped from the page
cache, probes one batch with read-ahead ``off``, ``auto`` or ``always``
and prints its answers and its major faults.  Read-ahead may change when
pages are read, never what a row answers: values and status arrays are
compared row by row across the modes, cold and warm, WDL and DTZ, on a
synthetic 6-piece set and on the real KBBBBvK and KNNNNvK of
../shared/syzygy6.  And it must do what it is for: with read-ahead the
probing thread meets a fraction of the major faults it meets without
(the pages are asked for rows ahead and arrive while it works).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess.syzygy
import numpy as np
import pytest

from support import positions
from support.page_drop import drop_tables
from support.table_cache import SYZYGY6, copy_tables, shared_folder

CHILD = Path(__file__).resolve().parent / "support" / "cold_batch.py"
WRITER = Path(__file__).resolve().parent / "support" / "syzygy_writer.py"
SYNTHETIC = "KRRvKBN"
MODES = ("off", "auto", "always")

pytestmark = pytest.mark.skipif(sys.platform != "linux",
                                reason="page-cache control (posix_fadvise) and fault counts: Linux")


def run_cold(folder: Path, rows: Path, kind: str, mode: str, threads: int,
             cold: bool = True) -> dict[str, Any]:
    if cold:
        drop_tables(folder)
    proc = subprocess.run([sys.executable, str(CHILD), str(folder), str(rows), kind, mode,
                           str(threads)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def save_rows(boards: list[chess.Board], path: Path) -> Path:
    np.savez(path, **positions.to_arrays(boards))  # type: ignore[arg-type]
    return path


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic 6-piece material and every table its probes reach."""
    folder = tmp_path_factory.mktemp("read-ahead-tables")
    subprocess.run([sys.executable, str(WRITER), str(folder), SYNTHETIC], check=True,
                   capture_output=True, timeout=300)
    return folder


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copies of ../shared/syzygy6's tables, this module's own: the suite's
    other pass, running at the same time, reads and warms the shared files,
    which would make a cold run here warm."""
    names = [f"{m}.{ext}" for m in ("KBBBBvK", "KNNNNvK") for ext in ("rtbw", "rtbz")]
    shared_folder(SYZYGY6, *names)
    return copy_tables(SYZYGY6, tmp_path_factory.mktemp("read-ahead-real"), *names)


def sets() -> list[tuple[str, str]]:
    return [("synthetic", SYNTHETIC), ("real", "KBBBBvK"), ("real", "KNNNNvK")]


@pytest.mark.parametrize("kind", ["wdl", "dtz"])
@pytest.mark.parametrize("source,material", sets(), ids=[f"{s}-{m}" for s, m in sets()])
def test_answers_do_not_depend_on_read_ahead(synthetic: Path, real: Path, tmp_path: Path,
                                             kind: str, source: str, material: str) -> None:
    folder = synthetic if source == "synthetic" else real
    boards = positions.table_sample(material, 3000, seed=41)
    rows = save_rows(boards, tmp_path / "rows.npz")
    runs = {mode: run_cold(folder, rows, kind, mode, threads=2) for mode in MODES}
    runs["warm"] = run_cold(folder, rows, kind, "always", threads=2, cold=False)
    # One probing thread on a machine with more processors: the asking is
    # done by a thread of its own (tb_read_ahead.c), for these runs only.
    for mode in ("auto", "always"):
        runs[f"{mode}, one thread"] = run_cold(folder, rows, kind, mode, threads=1)
    first = runs["off"]
    answered = sum(1 for s in first["status"] if s == 0)
    assert answered > len(boards) // 2, f"only {answered} rows answered: the test probes nothing"
    for name, run in runs.items():
        for what in ("values", "status"):
            bad = [i for i, (a, b) in enumerate(zip(first[what], run[what], strict=True))
                   if a != b]
            assert not bad, (f"{name}: {len(bad)} rows' {what} differ from read-ahead off, "
                             f"first {boards[bad[0]].fen()}")
    if source == "real" and kind == "wdl":
        # ... and they are the right answers (python-chess, on a sample).
        with chess.syzygy.open_tablebase(str(folder)) as oracle:
            for i in range(0, len(boards), 25):
                if first["status"][i] == 0:
                    assert first["values"][i] == oracle.probe_wdl(boards[i]), boards[i].fen()


def test_read_ahead_takes_the_faults_off_the_probing_thread(real: Path, tmp_path: Path) -> None:
    """One thread, cold, the real KBBBBvK WDL file: without read-ahead the
    thread waits on one read after another (a major fault each); with it,
    those pages were asked for rows before and most have arrived (asked by
    the asking thread where a processor is free for it, else inline; the
    count is the whole process's, the asker's faults included)."""
    folder = real
    boards = positions.table_sample("KBBBBvK", 20000, seed=7)
    rows = save_rows(boards, tmp_path / "rows.npz")
    off = run_cold(folder, rows, "wdl", "off", threads=1)
    ahead = run_cold(folder, rows, "wdl", "always", threads=1)
    assert off["values"] == ahead["values"] and off["status"] == ahead["status"]
    assert off["major_faults"] > 500, f"the cold run was not cold: {off['major_faults']} faults"
    assert ahead["major_faults"] < off["major_faults"] // 2, (off["major_faults"],
                                                              ahead["major_faults"])


def test_mode_is_checked(synthetic: Path) -> None:
    import pyfathom

    with pyfathom.open_tablebase(str(synthetic)) as tb:
        assert tb.read_ahead == "auto"
        tb.read_ahead = "off"
        assert tb.read_ahead == "off"
        with pytest.raises(ValueError, match="read_ahead"):
            tb.read_ahead = "sometimes"
        assert tb.read_ahead == "off"
