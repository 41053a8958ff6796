"""Shared helpers of the benchmark scripts: tables, the position file, and
building / running the C benchmark.  Not imported by the package."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
BIN = Path(os.environ.get("PYFATHOM_BENCH_BIN") or BENCH / "bin")
"""Where the benchmarks build their programs and keep their position files
(not committed); ``PYFATHOM_BENCH_BIN`` moves it (the sanitized test pass
gives its benchmark smoke tests their own, beside the plain pass's)."""
CORE = ROOT / "src" / "fathom"

sys.path.insert(0, str(ROOT / "tests"))

from support import positions as _positions  # noqa: E402  (the tests' generators)
from support.table_cache import SYZYGY5  # noqa: E402,F401  (../shared/syzygy5)
from support.c_programs import FATHOM_BUILD, core_files  # noqa: E402  (src/fathom/sources.txt)

MATERIALS_5_WITH_DTZ = ["KBBvKN", "KRPvKR", "KBBBvK"]
"""The shared 5-piece tables with a DTZ file (KQRvKR & co. have WDL only):
the positions of the 5-piece per-position benchmarks."""


def default_tables() -> Path:
    """The tests' table directory, fetched (verified) on first use."""
    from support import table_cache  # tests/support/table_cache.py: the one definition of the cache

    return table_cache.tables_dir()


def make_positions(path: Path, n: int, seed: int = 2024,
                   keys: list[str] | None = None) -> Path:
    """Write *n* positions over the 35 3-4-piece tables (or the tables
    *keys*), deterministically.

    Each line: eight hex bitboards (white black kings queens rooks bishops
    knights pawns), ep square, turn, then `` ; FEN``.  Regenerated only when
    the file is missing or holds a different count.
    """
    if path.exists():
        with path.open() as f:
            if sum(1 for _ in f) == n:
                return path
    keys = keys or _positions.ALL_TABLES
    per_table = n // len(keys) + 1
    boards = [b for key in keys
              for b in _positions.table_sample(key, per_table, seed=seed,
                                               ep_share=0.25, push_share=0.1)]
    random.Random(seed).shuffle(boards)
    boards = boards[:n]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as f:
        for b in boards:
            w, bl, k, q, r, bi, kn, p, ep, turn = _positions.bitboards(b)
            f.write(f"{w:x} {bl:x} {k:x} {q:x} {r:x} {bi:x} {kn:x} {p:x} {ep} {turn}"
                    f" ; {b.fen(en_passant='fen')}\n")
    os.replace(tmp, path)
    return path


def read_fens(path: Path) -> list[str]:
    with path.open() as f:
        return [line.split(" ; ", 1)[1].strip() for line in f if " ; " in line]


def cc() -> list[str]:
    """The C compiler command: $CC, or cc."""
    return shlex.split(os.environ.get("CC", "cc"))


def build_bench_core(name: str = "bench_core", with_core: bool = True,
                     libs: tuple[str, ...] = ()) -> Path:
    """Compile benchmarks/NAME.c (cc -O2) into BIN, with the core's sources
    unless *with_core* is false, unless the binary is newer than every
    source."""
    BIN.mkdir(parents=True, exist_ok=True)
    exe = BIN / name
    sources = [str(BENCH / f"{name}.c")]
    if with_core:
        sources += [str(p) for p in core_files(*FATHOM_BUILD)]
    inputs = [Path(s) for s in sources] + core_files() + list(BENCH.glob("*.h"))
    if exe.exists() and exe.stat().st_mtime > max(p.stat().st_mtime for p in inputs):
        return exe
    cmd = [*cc(), "-std=c99", "-O2", "-Wall", "-Wextra", "-pthread", f"-I{CORE}",
           *sources, "-o", str(exe), *libs]
    subprocess.run(cmd, check=True)
    return exe


def run_bench_core(tables: Path, positions: Path, runs: int = 5,
                   min_seconds: float = 0.3) -> dict[str, float]:
    """Run the C benchmark; returns its ``key value`` lines as a dict."""
    exe = build_bench_core()
    out = subprocess.run([str(exe), str(tables), str(positions), str(runs), str(min_seconds)],
                         check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            result[parts[0]] = float(parts[1])
    return result
