"""Plain ``pyfathom batch`` against Dask with one and two workers, on the
same Parquet file, in one run.

    python benchmarks/bench_dask.py        # --rows N --row-group R --rounds K --tables DIR --json

The file (``benchmarks/bin/columnar-N-rgR.parquet``, made once, see
``bench_columnar.py``) holds N FENs in row groups of R rows; Dask reads one
partition per row group (``split_row_groups=True``).  Each round times, in
an order that alternates between rounds:

- ``plain``: the batch command's streaming loop in this process
  (:func:`pyfathom.columnar.run_columnar_batch`, ``--threads 1``), Parquet
  file to Parquet file;
- ``plain_all_cores``: the same with every core (``--threads`` unset);
- ``dask1`` / ``dask2``: :func:`pyfathom.dask.probe_dataframe` on a
  LocalCluster of one / two worker processes with one thread each,
  ``read_parquet`` -> probe -> ``to_parquet`` (a dataset, one file per
  partition, written by the workers).

The clusters are started before the rounds (start-up is not timed); the
tablebase is opened in every process before timing.  Reported: rows/s per
variant (median and range over the rounds) and the per-round ratios
dask1 / plain and dask2 / dask1 (median and range).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench_columnar import make_parquet
from common import BIN, default_tables


def open_tables(tables: str) -> int:
    """Run on each worker: open its tablebase now, not in the first timed task."""
    from pyfathom import dask as pfdask

    pfdask.worker_tablebase((tables,))
    return pfdask.open_count()


def stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=4_000_000)
    parser.add_argument("--row-group", type=int, default=250_000,
                        help="rows per row group = per Dask partition (default 250,000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import dask.dataframe as dd
    import distributed

    import pyfathom
    from pyfathom import columnar
    from pyfathom import dask as pfdask

    tables = str(args.tables or default_tables())
    source = make_parquet(BIN / f"columnar-{args.rows}-rg{args.row_group}.parquet", args.rows,
                          row_group=args.row_group)
    work = Path(tempfile.mkdtemp(prefix="bench-dask-", dir=BIN))
    tb = pyfathom.open_tablebase(tables)
    clusters: dict[str, Any] = {}
    try:
        for name, workers in (("dask1", 1), ("dask2", 2)):
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                               silence_logs=logging.ERROR)
            client = distributed.Client(cluster, set_as_default=False)
            client.run(open_tables, tables)  # opened before timing
            clusters[name] = (cluster, client)

        def plain(threads: int | None) -> Callable[[], None]:
            def run() -> None:
                out = work / "plain.parquet"
                columnar.run_columnar_batch(tb, str(source), str(out), input_format="parquet",
                                            output_format="parquet", threads=threads)
                out.unlink()
            return run

        def on_dask(name: str) -> Callable[[], None]:
            def run() -> None:
                _, client = clusters[name]
                out = work / name
                frame = dd.read_parquet(str(source), split_row_groups=True)
                labelled = pfdask.probe_dataframe(frame, tables)
                labelled.to_parquet(str(out), write_index=False, compute_kwargs={"scheduler": client})
                shutil.rmtree(out)
            return run

        variants = {"plain": plain(1), "plain_all_cores": plain(None),
                    "dask1": on_dask("dask1"), "dask2": on_dask("dask2")}
        partitions = dd.read_parquet(str(source), split_row_groups=True).npartitions
        for run in variants.values():  # warm-up: page cache, imports, first tasks
            run()
        seconds: dict[str, list[float]] = {name: [] for name in variants}
        order = list(variants)
        for round_ in range(args.rounds):
            for name in (order if round_ % 2 == 0 else order[::-1]):
                start = time.perf_counter()
                variants[name]()
                seconds[name].append(time.perf_counter() - start)
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()
        tb.close()
        shutil.rmtree(work, ignore_errors=True)

    rates = {name: [args.rows / s for s in values] for name, values in seconds.items()}
    result = {
        "rows": args.rows,
        "partitions": partitions,
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_average_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "rows_per_sec": {name: stats(values) for name, values in rates.items()},
        "dask1_vs_plain": stats([d / p for d, p in zip(rates["dask1"], rates["plain"])]),
        "dask2_vs_dask1": stats([d2 / d1 for d2, d1 in zip(rates["dask2"], rates["dask1"])]),
        "dask2_vs_plain_all_cores": stats([d / p for d, p in zip(rates["dask2"], rates["plain_all_cores"])]),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.rows:,} FENs, {partitions} partitions of {args.row_group:,} rows, {args.rounds} rounds "
          f"(load average {result['load_average_end']:.1f} on {result['cpus']} cores at the end)")
    for name, s in result["rows_per_sec"].items():
        print(f"  {name:16s} {s['median']:>12,.0f} rows/s  ({s['min']:,.0f} - {s['max']:,.0f})")
    for key in ("dask1_vs_plain", "dask2_vs_dask1", "dask2_vs_plain_all_cores"):
        s = result[key]
        print(f"  {key:25s} {s['median']:.2f}x  ({s['min']:.2f}x - {s['max']:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
