"""The users of the batch path, timed on two builds: the server's batch
endpoint, ``pyfathom batch`` on a FEN file and ``pyfathom.dask``.

    python benchmarks/bench_batch_users.py --build BEFORE_DIR --build AFTER_DIR
        [--rows N] [--server-rows M] [--rounds R] [--only server,cli,dask] [--json]

A build is a source tree whose ``pyfathom/_core`` is built in place (this
repository's own, after ``pip install -e .``; another checkout, e.g. main
extracted with ``git archive``, after ``python setup.py build_ext
--inplace``).  Each measure runs in a fresh process with that tree first on
``sys.path``, one warm-up pass and one timed pass, the builds alternated
round by round (reversed every other round); printed: seconds per run,
median and range, and the after / before ratio of the medians.

* ``server``: what ``POST /standard/batch`` does with the first M
  positions (default 2,000), without HTTP
  (``pyfathom.server.lichess.probe_documents``, one thread): the DTZ batch
  call over them and their children, then python-chess's moves and SAN
  for each answer (the latter the same on both builds);
* ``cli``: ``python -m pyfathom batch FILE --threads 1 -o OUT.csv`` (WDL
  and, with ``--dtz``, DTZ) on a file of the positions' FENs;
* ``dask``: ``pyfathom.dask.probe_dataframe`` of a Parquet file of the FENs
  on a ``distributed.LocalCluster`` of one worker process (the cluster's
  start not timed).

The positions are random 3-4-5-piece ones (the batch benchmark's, over the
3-4-piece test tables and ``../shared/syzygy5``).  Not part of the test
suite.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402

KINDS = ("server", "cli", "dask")


def fen_lines(positions: Path, n: int) -> list[str]:
    out = []
    with positions.open() as f:
        for line in f:
            if " ; " in line:
                out.append(line.split(" ; ", 1)[1].strip())
            if len(out) == n:
                break
    return out


def worker(kind: str, tables: str, fens_path: Path, work: Path, server_rows: int) -> float:
    """One warm-up and one timed run of `kind` in this process: seconds."""
    import pyfathom

    fens = fens_path.read_text().splitlines()
    if kind == "server":
        from pyfathom.server import lichess

        boards = [lichess.parse_fen(f) for f in fens[:server_rows]]
        with pyfathom.open_tablebase(tables) as tb:
            lichess.probe_documents(tb, boards, threads=1)
            start = time.perf_counter()
            lichess.probe_documents(tb, boards, threads=1)
            return time.perf_counter() - start
    if kind == "cli":
        cmd = [sys.executable, "-m", "pyfathom", "batch", str(fens_path), "--tables", tables,
               "--threads", "1", "--dtz", "-o", str(work / "out.csv")]
        def run_cli() -> None:
            # 1: some rows failed (5-piece tables without a DTZ file), as expected.
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stderr.strip())

        run_cli()
        start = time.perf_counter()
        run_cli()
        return time.perf_counter() - start
    import logging

    import dask.dataframe as dd
    import distributed
    import pandas as pd

    from pyfathom import dask as pfdask

    source = work / "fens.parquet"
    pd.DataFrame({"fen": fens}).to_parquet(source, row_group_size=max(1, len(fens) // 4))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as client:
        def run() -> None:
            frame = dd.read_parquet(str(source), split_row_groups=True)
            pfdask.probe_dataframe(frame, tables.split(os.pathsep)).compute(scheduler=client)

        run()
        start = time.perf_counter()
        run()
        return time.perf_counter() - start


def measure(build: Path, kind: str, tables: str, fens_path: Path, server_rows: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(build))
    with tempfile.TemporaryDirectory(prefix="bench-users-", dir=common.BIN) as work:
        out = subprocess.run([sys.executable, __file__, "--worker", kind, "--tables", tables,
                              "--fens", str(fens_path), "--work", work,
                              "--server-rows", str(server_rows)],
                             env=env, capture_output=True, text=True, cwd=work)
    if out.returncode != 0:
        raise SystemExit(f"{kind} on {build} failed:\n{out.stderr.strip()}")
    return float(out.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, action="append", default=[],
                        help="source tree with pyfathom/_core built in place (give two)")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--server-rows", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(KINDS))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", choices=KINDS, help=argparse.SUPPRESS)
    parser.add_argument("--tables", help=argparse.SUPPRESS)
    parser.add_argument("--fens", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(worker(args.worker, args.tables, args.fens, args.work, args.server_rows))
        return 0
    if len(args.build) != 2:
        parser.error("give --build twice: before, then after")
    kinds = [k for k in args.only.split(",") if k]
    if any(k not in KINDS for k in kinds):
        parser.error(f"--only takes {','.join(KINDS)}")

    from support.positions import ALL_TABLES  # tests/, put on the path by common

    keys5 = sorted(p.stem for p in common.SYZYGY5.glob("*.rtbw")) if common.SYZYGY5.is_dir() else []
    tables = ":".join(str(d) for d in [common.default_tables(), *([common.SYZYGY5] if keys5 else [])])
    positions = common.make_positions(common.BIN / f"positions-batch-{args.rows}.txt", args.rows,
                                      keys=ALL_TABLES + keys5)
    fens_path = common.BIN / f"fens-batch-{args.rows}.txt"
    fens_path.write_text("\n".join(fen_lines(positions, args.rows)) + "\n")
    builds = [b.resolve() for b in args.build]
    seconds: dict[str, dict[int, list[float]]] = {k: {0: [], 1: []} for k in kinds}
    for round_ in range(args.rounds):
        for kind in kinds:
            for b in ([0, 1] if round_ % 2 == 0 else [1, 0]):
                seconds[kind][b].append(measure(builds[b], kind, tables, fens_path,
                                                args.server_rows))
    results: dict[str, Any] = {"rows": args.rows, "builds": [str(b) for b in builds]}
    for kind in kinds:
        res: dict[str, Any] = {}
        for b, name in ((0, "before"), (1, "after")):
            v = seconds[kind][b]
            res[name] = {"median": statistics.median(v), "min": min(v), "max": max(v)}
        res["before_over_after"] = round(res["before"]["median"] / res["after"]["median"], 2)
        results[kind] = res
        if not args.json:
            rows = min(args.rows, args.server_rows) if kind == "server" else args.rows
            print(f"{kind}: {rows:,} positions")
            for name in ("before", "after"):
                r = res[name]
                print(f"  {name:7s} {r['median']:.3f} s  ({r['min']:.3f} .. {r['max']:.3f})"
                      f"  {rows / r['median']:,.0f} positions/s")
            print(f"  speed-up {res['before_over_after']:.2f}x")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
