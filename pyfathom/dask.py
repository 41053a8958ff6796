"""Probing Dask DataFrames on a cluster (extra ``pyfathom-syzygy[dask]``).

:func:`probe_dataframe` adds ``wdl``, ``dtz`` (with ``dtz=True``) and
``status`` columns to a ``dask.dataframe.DataFrame`` whose positions are a
FEN column or the bitboard columns (see :mod:`pyfathom.columnar`).  It is
lazy, as Dask users expect: one ``map_partitions`` task per partition, run
when the result is computed or written::

    import dask.dataframe as dd
    from distributed import Client
    from pyfathom.dask import probe_dataframe

    client = Client("tcp://scheduler:8786")
    labelled = probe_dataframe(dd.read_parquet("positions/"), tables="/data/syzygy")
    labelled.to_parquet("labelled/")        # one file per partition, written by the workers

The tables are read on the workers: ``tables`` (a directory or a list of
them, the same path on every node) or, when it is None, each worker's
``$SYZYGY_PATH`` (else its ``pyfathom download`` directory).  Each worker
process opens the tablebase once, on its first task, and reuses it for every
later partition and task; that first use checks the directories exist and
hold tables, and fails with :class:`WorkerTablesError` naming the worker and
the path.  The partitions' C batch calls use ``threads=1`` by default: the
parallelism comes from Dask's workers and threads.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Sequence
from typing import Any

from ._columnar_cli import FORMAT_NAMES

__all__ = ["probe_dataframe", "probe_partition", "worker_tablebase", "open_count", "partition_count",
           "WorkerTablesError", "DASK_EXTRA"]

DASK_EXTRA = 'pip install "pyfathom-syzygy[dask]"'

TablePaths = tuple[str, ...] | None


class WorkerTablesError(RuntimeError):
    """A worker cannot open the tables: the message names the worker and the path."""


def _require_dask() -> Any:
    from .columnar import MissingExtraError

    try:
        import dask.dataframe
        import pyarrow  # noqa: F401  (the partitions go through pyfathom.columnar)
    except ImportError as e:
        raise MissingExtraError(
            f"Dask support needs dask[dataframe], distributed and pyarrow: {DASK_EXTRA}") from e
    return dask.dataframe


# One tablebase per worker process and table list, opened on first use.
# (A cache, not shared state of the C core: each Tablebase is its own handle.)
_lock = threading.Lock()
_tablebases: dict[TablePaths, Any] = {}
_opens = 0
_partitions = 0


def open_count() -> int:
    """Tablebases this process has opened (``client.run(open_count)`` asks every worker)."""
    return _opens


def partition_count() -> int:
    """Partitions this process has probed."""
    return _partitions


def _worker_name() -> str:
    """This worker as Dask names it, with its address; the host and pid outside Dask."""
    try:
        from distributed import get_worker

        worker = get_worker()
        return f"{worker.name} at {worker.address} (pid {os.getpid()})"
    except (ImportError, ValueError):
        return f"{socket.gethostname()} (pid {os.getpid()})"


def _table_key(tables: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None) -> TablePaths:
    if tables is None:
        return None
    if isinstance(tables, (str, os.PathLike)):
        return (os.fspath(tables),)
    return tuple(os.fspath(t) for t in tables)


def worker_tablebase(tables: TablePaths) -> Any:
    """This process's tablebase over ``tables`` (None: ``$SYZYGY_PATH``, else
    the download directory), opened and checked on the first call only."""
    global _opens
    with _lock:
        tb = _tablebases.get(tables)
        if tb is not None:
            return tb
        import pyfathom

        from . import download

        dirs, origin = download.table_dirs(list(tables) if tables else None)
        source = {"--tables": "given", "SYZYGY_PATH": "from $SYZYGY_PATH",
                  "default": "the download directory"}[origin]
        for d in dirs:
            if not d.is_dir():
                raise WorkerTablesError(
                    f"worker {_worker_name()}: the table path {d} ({source}) is not a directory "
                    f"on this node; every worker needs the tables at the same path")
        if not download.find_table_files(dirs):
            where = os.pathsep.join(str(d) for d in dirs)
            raise WorkerTablesError(
                f"worker {_worker_name()}: no Syzygy tables in the table path {where} ({source})")
        tb = pyfathom.Tablebase()
        for d in dirs:
            tb.add_directory(str(d))
        _tablebases[tables] = tb
        _opens += 1
        return tb


def probe_partition(frame: Any, tables: TablePaths, fen_column: str = "fen", dtz: bool = False,
                    threads: int | None = 1) -> Any:
    """One pandas partition with the result columns added (run on a worker)."""
    import pandas as pd

    from .columnar import probe_columns

    global _partitions
    result = probe_columns(worker_tablebase(tables), frame, fen_column=fen_column, dtz=dtz,
                           threads=threads)
    with _lock:
        _partitions += 1
    return pd.concat([frame, result], axis=1)


def _result_meta(meta: Any, dtz: bool) -> Any:
    import pandas as pd

    from .batchio import STATUS_NAMES

    columns: dict[str, Any] = {"wdl": pd.array([], dtype="Int8")}
    if dtz:
        columns["dtz"] = pd.array([], dtype="Int16")
    columns["status"] = pd.Categorical([], categories=list(STATUS_NAMES))
    return pd.concat([meta, pd.DataFrame(columns, index=meta.index)], axis=1)


def probe_dataframe(frame: Any, tables: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
                    *, fen_column: str = "fen", dtz: bool = False, threads: int | None = 1) -> Any:
    """``frame`` (a dask DataFrame) with ``wdl``, ``dtz`` (with ``dtz=True``)
    and ``status`` columns added, lazily (nothing runs until it is computed).

    ``wdl``/``dtz`` are nullable ``Int8``/``Int16`` (null where a row could
    not be probed), ``status`` a categorical of the batch statuses; bad rows
    never fail the computation.  ``tables`` are paths on the workers.
    """
    _require_dask()
    from .columnar import BITBOARD_COLUMNS, ColumnarError

    meta = frame._meta
    names = [str(c) for c in meta.columns]
    if fen_column not in names and any(c not in names for c in BITBOARD_COLUMNS):
        raise ColumnarError(f"the DataFrame has no FEN column {fen_column!r} and not the bitboard "
                            f"columns {', '.join(BITBOARD_COLUMNS)}; its columns: {', '.join(names)}")
    for name in ("wdl", "dtz", "status") if dtz else ("wdl", "status"):
        if name in names:
            raise ColumnarError(f"the DataFrame already has a column {name!r}; rename or drop it first")
    return frame.map_partitions(probe_partition, _table_key(tables), fen_column, dtz, threads,
                                meta=_result_meta(meta, dtz))


# --- pyfathom batch --dask ------------------------------------------------------------


def run_batch_command(args: Any) -> int:
    """``pyfathom batch DATASET --dask SCHEDULER -o OUT_DIR``: a Parquet
    file or dataset through a Dask cluster into a Parquet dataset (one file
    per partition), written under a temporary name and renamed when complete."""
    import time

    from .cli import EXIT_FAIL, EXIT_OK, CliError, _err
    from .columnar import ColumnarError, MissingExtraError, same_file

    try:
        dd = _require_dask()
    except MissingExtraError as e:
        raise CliError(str(e)) from None
    if args.input_format != "parquet":
        raise CliError(f"--dask reads a Parquet file or dataset directory, not "
                       f"{FORMAT_NAMES.get(args.input_format, 'FEN/EPD text')} "
                       f"(--input-format parquet for a directory)")
    if not args.output or args.output == "-":
        raise CliError("--dask writes a Parquet dataset: -o DIRECTORY")
    if args.strict:
        raise CliError("--strict is not supported with --dask (the status column says which rows failed)")
    if not os.path.exists(args.file):
        raise CliError(f"cannot read {args.file}: no such file or directory")
    if same_file(args.file, args.output):
        raise CliError(f"the output {args.output} is the input: write the results elsewhere")
    if os.path.exists(args.output) and (not os.path.isdir(args.output) or os.listdir(args.output)):
        raise CliError(f"{args.output} already exists: remove it or choose another output directory")
    # Paths as the workers will see them: absolute (they run elsewhere).
    from . import download

    tables = (tuple(str(p.resolve()) for p in download.table_dirs(args.tables)[0])
              if args.tables else None)
    start = time.monotonic()
    output = os.path.abspath(args.output)
    temp = os.path.join(os.path.dirname(output), f".{os.path.basename(output)}.part-{os.getpid()}")
    try:
        import distributed

        client_class: Any = distributed.Client  # untyped constructor
        with client_class(args.dask, timeout="20s"):
            frame = dd.read_parquet(os.path.abspath(args.file))
            labelled = probe_dataframe(frame, tables, fen_column=args.fen_column, dtz=args.dtz,
                                       threads=args.threads or 1)
            labelled.to_parquet(temp, write_index=False)
            counts = dd.read_parquet(temp, columns=["status"])["status"].value_counts().compute()
    except (ColumnarError, WorkerTablesError) as e:
        _remove_tree(temp)
        raise CliError(str(e)) from None
    except OSError as e:  # the scheduler cannot be reached, a file cannot be written
        _remove_tree(temp)
        raise CliError(f"Dask run through {args.dask} failed: {e}") from None
    except BaseException:
        _remove_tree(temp)
        raise
    if os.path.isdir(output):
        os.rmdir(output)  # empty (checked above)
    os.replace(temp, output)
    by_status = {str(k): int(v) for k, v in counts.items() if int(v)}
    total = sum(by_status.values())
    ok = by_status.get("ok", 0)
    parts = ", ".join(f"{n} {name}" for name, n in sorted(by_status.items()) if name != "ok")
    _err(f"{total} rows: {ok} probed, {total - ok} bad" + (f" ({parts})" if parts else "")
         + f" in {time.monotonic() - start:.2f}s on {args.dask}; results in {args.output}")
    return EXIT_FAIL if total != ok else EXIT_OK


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)
