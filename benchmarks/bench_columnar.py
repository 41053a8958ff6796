"""``pyfathom batch`` on a big Parquet file: rows per second and peak RSS.

    python benchmarks/bench_columnar.py --rows 10000000     # --tables DIR --json

Writes ``benchmarks/bin/columnar-N[-unique].parquet`` (once; not committed):
a ``fen`` column of N positions drawn by numpy from a pool of 3,500 positions
over the 35 three- and four-piece tables, with one bad row in 500 (an
unparsable FEN), in row groups of 1,048,576 rows (pyarrow's default);
``--unique`` gives nearly every row its own move counters.  Then
runs ``pyfathom batch FILE -o OUT.parquet`` in a child process and reports
its wall time, rows per second and peak RSS (VmHWM, Linux), and checks the
output has one row per input row.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import BIN, default_tables

from support import positions as _positions  # noqa: E402  (on sys.path through common)

ROW_GROUP = 1 << 20

PEAK_RSS_CODE = (
    "import sys\n"
    "from pyfathom.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "print('vmhwm_kb', hwm[0] if hwm else 0, file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def fen_pool(seed: int = 15, per_table: int = 100) -> list[str]:
    boards = [b for key in _positions.ALL_TABLES
              for b in _positions.table_sample(key, per_table, seed=seed, ep_share=0.2)]
    random.Random(seed).shuffle(boards)
    return [b.fen() for b in boards]


def make_parquet(path: Path, rows: int, *, row_group: int = ROW_GROUP, seed: int = 15,
                 unique: bool = False) -> Path:
    """A Parquet file of ``rows`` FENs (kept when it already has that many rows).

    With ``unique``, each FEN gets a random halfmove clock (0..99) and move
    number (1..60,000: the FEN parser takes up to 65,535), so that nearly every string differs and Parquet's
    dictionary encoding cannot shrink the column (the file is then about
    20 bytes a row instead of 1.5)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if path.exists():
        try:
            if pq.ParquetFile(path).metadata.num_rows == rows:
                return path
        except Exception:  # a damaged leftover: write it again
            pass
    fens = fen_pool(seed)
    if unique:
        fens = [" ".join(fen.split()[:4]) for fen in fens]
    pool = pa.array(fens + ["not a fen"] * 7, type=pa.string())  # 7 in 3,507: 1 in 500
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    schema = pa.schema([("fen", pa.string())])
    with pq.ParquetWriter(temp, schema) as writer:
        for start in range(0, rows, row_group):
            n = min(row_group, rows - start)
            column = pool.take(pa.array(rng.integers(0, len(pool), n)))
            if unique:
                column = pc.binary_join_element_wise(
                    column, pc.cast(pa.array(rng.integers(0, 100, n)), pa.string()),
                    pc.cast(pa.array(rng.integers(1, 60_001, n)), pa.string()), " ")
            writer.write_table(pa.table({"fen": column}), row_group_size=row_group)
    os.replace(temp, path)
    return path


def run_batch(source: Path, tables: Path, extra: list[str]) -> dict[str, Any]:
    out = source.with_name(source.stem + "-out.parquet")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", PEAK_RSS_CODE, "batch", str(source), "--tables", str(tables),
                           "-o", str(out), *extra], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode not in (0, 1) or "vmhwm_kb" not in proc.stderr:
        raise SystemExit(f"pyfathom batch failed ({proc.returncode}): {proc.stderr[-2000:]}")
    import pyarrow.parquet as pq

    written = pq.ParquetFile(out).metadata.num_rows
    out.unlink()
    summary = [line for line in proc.stderr.splitlines() if " rows: " in line]
    return {"seconds": seconds, "peak_rss_mb": int(proc.stderr.split("vmhwm_kb ")[1].split()[0]) / 1024,
            "rows_written": written, "summary": summary[-1] if summary else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--tables", type=Path, help="table directory (default: the tests' tables)")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--dtz", action="store_true", help="also probe DTZ")
    parser.add_argument("--unique", action="store_true",
                        help="nearly every FEN different (random move counters): a file that "
                             "dictionary encoding cannot shrink")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tables = args.tables or default_tables()
    start = time.perf_counter()
    name = f"columnar-{args.rows}{'-unique' if args.unique else ''}.parquet"
    source = make_parquet(BIN / name, args.rows, unique=args.unique)
    made = time.perf_counter() - start
    runs = [run_batch(source, tables, ["--dtz"] if args.dtz else []) for _ in range(args.runs)]
    result = {
        "rows": args.rows,
        "file_mb": source.stat().st_size / 2**20,
        "make_seconds": made,
        "runs": runs,
        "rows_per_sec": [args.rows / r["seconds"] for r in runs],
        "peak_rss_mb": [r["peak_rss_mb"] for r in runs],
        "all_rows_written": all(r["rows_written"] == args.rows for r in runs),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.rows:,} rows, {result['file_mb']:.0f} MB of Parquet (made in {made:.1f} s)")
    for r in runs:
        print(f"  pyfathom batch{' --dtz' if args.dtz else ''}: {r['seconds']:.1f} s, "
              f"{args.rows / r['seconds']:,.0f} rows/s, peak RSS {r['peak_rss_mb']:.0f} MB; {r['summary']}")
    print(f"  output rows == input rows: {result['all_rows_written']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
