"""Concurrency: threads probing at once, and close() while others probe.

* tests/fuzz/tsan_stress.c built with gcc ``-fsanitize=thread``: 8 threads
  released together on cold instances (so tables are mapped concurrently)
  probe WDL, DTZ and root of positions of all 35 materials and must equal a
  serial run on another instance; then batch calls with 4 threads, alone and
  two at once.  Any ThreadSanitizer report exits 66 and fails the test.  A
  ``--race`` run first proves that TSan is live and halts on a report.
* Python threads hammering one cold :class:`pyfathom.Tablebase`
  (``probe_wdl``/``probe_dtz``/``probe``/``probe_root`` on shared board
  objects and on copies, batch probes, error paths), and several instances
  at once: every answer equals a serial pass.
* ``close()`` while other threads probe, in a child process running the
  AddressSanitizer build flavour (``PYFATHOM_SANITIZE=1``): the probes must
  see the tablebase closed (empty), never touch freed memory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Callable

import chess
import numpy as np
import pytest

from support.sanitizer import SANITIZED, native_env

import pyfathom
from support.c_programs import FATHOM_BUILD, core_files
from support.positions import ALL_TABLES, table_sample

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "src" / "fathom"
FUZZ = ROOT / "tests" / "fuzz"
TSAN_ENV = {"TSAN_OPTIONS": "halt_on_error=1:exitcode=66:second_deadlock_stack=1"}


def _cc() -> str:
    for cc in (os.environ.get("CC"), "gcc", "cc"):
        if cc and shutil.which(cc):
            return cc
    pytest.fail("no C compiler (gcc or cc): the sanitizer tests need one")


# ---- ThreadSanitizer stress of the C core ----------------------------------

@pytest.fixture(scope="module")
def tsan_exe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("tsan") / "tsan_stress"
    cmd = [_cc(), "-std=c99", "-Wall", "-Wextra", "-Werror", "-fsanitize=thread",
           "-O1", "-g", f"-I{CORE}", str(FUZZ / "tsan_stress.c"),
           *map(str, core_files(*FATHOM_BUILD)), "-pthread", "-lm", "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=native_env())
    assert proc.returncode == 0, (
        f"{' '.join(cmd)}\n{proc.stderr}\n(the ThreadSanitizer runtime comes with gcc: "
        "Debian package libtsan2)")
    return exe


def _run_tsan(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = native_env(**TSAN_ENV)
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)
    if "unexpected memory mapping" in proc.stderr and shutil.which("setarch"):
        # gcc 12's TSan cannot cope with the high mmap randomisation of
        # recent kernels; without ASLR it can.
        proc = subprocess.run(["setarch", os.uname().machine, "-R", *args],
                              capture_output=True, text=True, env=env, timeout=timeout)
    return proc


TSAN_ONLY = pytest.mark.sanitizer_programs("a ThreadSanitizer program of its own")


@TSAN_ONLY
def test_tsan_reports_a_deliberate_race(tsan_exe: Path) -> None:
    """The build really is instrumented and a report really fails a run."""
    proc = _run_tsan([str(tsan_exe), "--race"], timeout=60)
    assert "WARNING: ThreadSanitizer: data race" in proc.stderr, proc.stderr
    assert proc.returncode == 66, (proc.returncode, proc.stderr)


@TSAN_ONLY
def test_tsan_many_threads_on_a_cold_instance(tsan_exe: Path, syzygy_dir: Path) -> None:
    # 8 threads, 12 placements per material and orientation (852 positions,
    # every 16th also root-probed), 3 rounds, batch calls with 4 threads.
    proc = _run_tsan([str(tsan_exe), str(syzygy_dir), "8", "12", "3", "4"], timeout=600)
    out = proc.stdout + proc.stderr
    assert "ThreadSanitizer" not in proc.stderr, out
    assert proc.returncode == 0, out
    assert "TOTAL mismatches 0" in proc.stdout, out
    head = dict(zip(*[iter(proc.stdout.split("\n", 1)[0].split())] * 2))
    assert int(head["positions"]) >= 800, out
    # Most positions are legal and probed (random placements leave some
    # with the side not to move in check).
    assert int(head["wdl_ok"]) >= 0.8 * int(head["positions"]), out
    # All 35 WDL files and the DTZ files of materials with decisive
    # positions get mapped (a draw needs no DTZ file).
    assert int(head["serial_mapped"]) >= 60, out
    for phase in ("round 0 threads 8", "round 2 threads 8 instances 2",
                  "batch wdl threads 4", "batch dtz threads 4",
                  "concurrent-batch wdl threads 4", "concurrent-batch dtz threads 4"):
        assert phase in proc.stdout, out


# ---- Python threads ---------------------------------------------------------

def _boards() -> list[chess.Board]:
    boards: list[chess.Board] = []
    for key in ALL_TABLES:
        boards += table_sample(key, 6, seed=66, ep_share=0.3, push_share=0.2)
    # Error paths too: castling rights, too many pieces, an invalid board.
    boards += [chess.Board("4k3/8/8/8/8/8/8/4K2R w K - 0 1"),
               chess.Board(),
               chess.Board("4k3/8/8/8/8/8/8/3QK2Q b - - 0 1")]
    return boards


def _answers(tb: pyfathom.Tablebase, board: chess.Board) -> tuple[object, ...]:
    out: list[object] = []
    for fn in (tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root):
        try:
            out.append(fn(board))
        except pyfathom.FathomError as exc:
            out.append((type(exc).__name__, str(exc)))
    return tuple(out)


def _hammer(jobs: list[Callable[[], object]], expected: list[object]) -> None:
    """Run every job in its own thread, all released at once, with a short
    switch interval; each job's return must equal its expected value."""
    barrier = threading.Barrier(len(jobs))
    got: list[object] = [None] * len(jobs)
    errors: list[str] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            got[i] = jobs[i]()
        except BaseException as exc:  # reported below, not lost in a thread
            errors.append(f"job {i}: {type(exc).__name__}: {exc}")

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        assert not any(t.is_alive() for t in threads), "a probing thread hangs"
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    for i, (g, e) in enumerate(zip(got, expected)):
        if isinstance(e, np.ndarray):
            assert isinstance(g, np.ndarray) and np.array_equal(g, e), f"job {i}"
        else:
            assert g == e, f"job {i}: differs from the serial pass"


def _probe_job(tb: pyfathom.Tablebase, boards: list[chess.Board], k: int,
               copies: bool) -> Callable[[], object]:
    """Thread k's pass: every board once, starting at its own offset, odd
    threads backwards; results put back in board order."""
    n = len(boards)
    order = [(k * n // 7 + (-j if k % 2 else j)) % n for j in range(n)]
    mine = [b.copy() for b in boards] if copies else boards

    def job() -> object:
        res: list[object] = [None] * n
        for i in order:
            res[i] = _answers(tb, mine[i])
        return res
    return job


def test_threads_hammer_one_tablebase(syzygy_dir: Path) -> None:
    boards = _boards()
    fens = [b.fen(en_passant="fen") for b in boards]
    with pyfathom.open_tablebase(syzygy_dir) as ref:
        serial = [_answers(ref, b) for b in boards]
        wdl_many = ref.probe_wdl_many(boards, threads=1)
        dtz_many = ref.probe_dtz_many(boards, threads=1)
    assert sum(isinstance(a[0], pyfathom.WDL) for a in serial) > 0.9 * len(boards)

    for _ in range(3):
        tb = pyfathom.open_tablebase(syzygy_dir)  # cold: the threads map the tables
        try:
            assert tb.mapped_count == 0
            jobs = [_probe_job(tb, boards, k, copies=k >= 4) for k in range(6)]
            jobs += [lambda: tb.probe_wdl_many(boards, threads=2),
                     lambda: tb.probe_dtz_many(boards, threads=2)]
            _hammer(jobs, [serial] * 6 + [wdl_many, dtz_many])
        finally:
            tb.close()
    # Probes only read the boards.
    assert [b.fen(en_passant="fen") for b in boards] == fens


def test_threads_on_several_instances_at_once(syzygy_dir: Path) -> None:
    boards = _boards()[::2]
    with pyfathom.open_tablebase(syzygy_dir) as ref:
        serial = [_answers(ref, b) for b in boards]
    tbs = [pyfathom.open_tablebase(syzygy_dir) for _ in range(4)]
    try:
        jobs = [_probe_job(tbs[k // 2], boards, k, copies=k % 2 == 1) for k in range(8)]
        _hammer(jobs, [serial] * 8)
        # Each instance mapped its own files.
        counts = {tb.mapped_count for tb in tbs}
        assert len(counts) == 1 and counts.pop() > 0
    finally:
        for tb in tbs:
            tb.close()


# ---- close() while other threads probe (AddressSanitizer build) -------------

CLOSE_CHILD = textwrap.dedent('''
    import os, random, sys, threading, time
    import chess, numpy as np, pyfathom, pyfathom._core

    tables, iterations = sys.argv[1], int(sys.argv[2])
    print("module", pyfathom._core.__file__, flush=True)
    boards = [chess.Board(f) for f in (
        "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1", "4k3/8/4K3/8/8/8/8/7R w - - 0 1",
        "8/8/8/8/8/2k5/1p6/1K6 w - - 0 1", "8/8/3k4/8/8/3K4/3P4/8 w - - 0 1",
        "8/8/8/4k3/8/8/1r6/KQ6 w - - 0 1", "8/8/8/8/8/8/5k2/KRN5 w - - 0 1")]
    rng = random.Random(6)
    lock = threading.Lock()
    count = {"probes": 0, "closed": 0, "other": 0}
    # Batch probes spend milliseconds in C without the GIL: a close() that
    # frees the instance then pulls it from under them.
    rows = [boards[i % len(boards)] for i in range(2048)]
    cols = [np.array([getattr(b, a) if a else b.occupied_co[c] for b in rows], dtype=np.uint64)
            for a, c in ((None, 1), (None, 0), ("kings", 0), ("queens", 0),
                         ("rooks", 0), ("bishops", 0), ("knights", 0), ("pawns", 0))]
    cols += [np.array([b.ep_square or 0 for b in rows], dtype=np.uint8),
             np.array([b.turn for b in rows], dtype=np.uint8)]

    def worker(tb, k, barrier):
        ops = [lambda b: tb.probe_wdl_bitboards(*cols, threads=2),
               lambda b: tb.probe_dtz_bitboards(*cols, threads=2),
               tb.probe_wdl, tb.probe_dtz, tb.probe, tb.probe_root,
               lambda b: tb.probe_wdl_many([b] * 64, threads=2)]
        ops = ops[k:k + 1] if k < 2 else ops[2:]
        barrier.wait()
        i, n = k, 0
        while True:
            try:
                ops[i % len(ops)](boards[i % len(boards)])
                n += 1
            except pyfathom.MissingTableError:
                # A closed tablebase is an empty one (close() sets tb.closed
                # before the probes can see the empty instance).
                if not tb.closed:
                    with lock:
                        count["other"] += 1
                    print("missing table before close", flush=True)
                    return
            except BaseException as exc:
                with lock:
                    count["other"] += 1
                print("unexpected", type(exc).__name__, exc, flush=True)
                return
            if tb.closed:
                with lock:
                    count["probes"] += n
                    count["closed"] += 1
                return
            i += 1

    for it in range(iterations):
        tb = pyfathom.open_tablebase(tables)   # cold: probes map tables
        barrier = threading.Barrier(5)
        threads = [threading.Thread(target=worker, args=(tb, k, barrier))
                   for k in range(4)]
        for t in threads:
            t.start()
        barrier.wait()
        time.sleep(rng.random() * 0.002)
        tb.close()
        for t in threads:
            t.join()
    del tb
    # Every instance is freed once its probes are over: no table stays mapped.
    with open("/proc/self/maps") as f:
        left = sum(1 for line in f if os.path.realpath(tables) in line)
    print("iterations", iterations, "probes", count["probes"], "closed",
          count["closed"], "other", count["other"], "left_mapped", left, flush=True)
''')


@pytest.fixture(scope="module")
def asan_package(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    """(environment, package dir) to run a child on the AddressSanitizer
    build flavour: the suite's own build in the sanitized run (its
    environment preloads the ASan runtime), else a copy of the package
    built with PYFATHOM_SANITIZE=1."""
    if SANITIZED:
        return dict(os.environ), Path(pyfathom.__file__).parent
    libasan = subprocess.run([_cc(), "-print-file-name=libasan.so"],
                             capture_output=True, text=True).stdout.strip()
    assert os.path.isabs(libasan) and os.path.exists(libasan), (
        f"no libasan.so from {_cc()} -print-file-name ({libasan!r})")
    env = {**os.environ, "LD_PRELOAD": libasan,
           # CPython frees little at exit: leak reports would be noise.
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    if os.environ.get("PYFATHOM_SANITIZE", "") not in ("", "0"):
        return env, Path(pyfathom.__file__).parent
    dest = tmp_path_factory.mktemp("asan")
    shutil.copy(ROOT / "build_ffi.py", dest)
    shutil.copytree(ROOT / "src", dest / "src")
    (dest / "pyfathom").mkdir()
    for p in (ROOT / "pyfathom").glob("*.py"):
        shutil.copy(p, dest / "pyfathom")
    shutil.copytree(ROOT / "pyfathom" / "_c", dest / "pyfathom" / "_c")
    proc = subprocess.run([sys.executable, "build_ffi.py"], cwd=dest, capture_output=True,
                          text=True, env={**os.environ, "PYFATHOM_SANITIZE": "1"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    env["PYTHONPATH"] = os.pathsep.join([str(dest), env.get("PYTHONPATH", "")])
    return env, dest / "pyfathom"


@pytest.mark.sanitizer_programs("its child runs on an ASan build of the core")
def test_close_while_other_threads_probe(asan_package: tuple[dict[str, str], Path],
                                         syzygy_dir: Path, tmp_path: Path) -> None:
    """Four threads probe a cold instance (per-position probes, batches of
    2,048 rows in C without the GIL) while the main thread closes it, 150
    times.  Before 93aa324, close() freed the instance at once and ASan
    reported a heap-use-after-free in every run; now a probe in flight keeps
    the instance alive and the next probe sees an empty tablebase."""
    env, package = asan_package
    child = tmp_path / "close_child.py"
    child.write_text(CLOSE_CHILD)
    iterations = 150
    proc = subprocess.run([sys.executable, str(child), str(syzygy_dir), str(iterations)],
                          capture_output=True, text=True, env=env, timeout=600)
    out = proc.stdout + proc.stderr[-6000:]
    assert f"module {package}" in proc.stdout, out  # the sanitized build ran
    assert "AddressSanitizer" not in proc.stderr, out
    assert proc.returncode == 0, out
    last = proc.stdout.splitlines()[-1].split()
    stats = dict(zip(last[::2], map(int, last[1::2])))
    assert stats["closed"] == 4 * iterations, out  # every thread saw the close
    assert stats["other"] == 0, out
    assert stats["probes"] > iterations, out       # probes did overlap the close
    assert stats["left_mapped"] == 0, out
