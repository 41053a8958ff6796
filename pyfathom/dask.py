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


__all__ = ["probe_dataframe", "probe_parquet_dataset", "probe_partition", "worker_tablebase",
           "open_count", "partition_count",
           "WorkerTablesError", "DASK_EXTRA"]

DASK_EXTRA = 'pip install "pyfathom-syzygy[dask]"'
"""The install command named by the error when Dask is missing (the
``dask`` extra: dask[dataframe], distributed and pyarrow, on the client and
on every worker)."""

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

        from . import tables as table_files

        dirs, origin = table_files.table_dirs(list(tables) if tables else None)
        source = {"--tables": "given", "SYZYGY_PATH": "from $SYZYGY_PATH",
                  "default": "the download directory"}[origin]
        for d in dirs:
            if not d.is_dir():
                raise WorkerTablesError(
                    f"worker {_worker_name()}: the table path {d} ({source}) is not a directory "
                    f"on this node; every worker needs the tables at the same path")
        folders = table_files.table_folders(dirs)  # one level down too, as the command line
        if not folders:
            where = os.pathsep.join(str(d) for d in dirs)
            raise WorkerTablesError(
                f"worker {_worker_name()}: no Syzygy tables in the table path {where} ({source})")
        tb = pyfathom.Tablebase()
        for folder in folders:
            tb.add_directory(str(folder))
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

    from .batch_files import STATUS_NAMES

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


# --- a Parquet dataset through a cluster (pyfathom batch --dask) ----------------------


def probe_parquet_dataset(scheduler: str, source: str, output: str, tables: TablePaths = None, *,
                          fen_column: str = "fen", dtz: bool = False,
                          threads: int | None = 1) -> dict[str, int]:
    """Probe a Parquet file or dataset directory on the cluster at
    ``scheduler`` into a Parquet dataset at ``output`` (one file per
    partition, written by the workers, so on a filesystem they all reach).

    The dataset is written under a temporary name beside ``output`` and
    renamed when complete; ``output`` must not exist (or be an empty
    directory).  Returns the rows per status name (read back from the
    written ``status`` column).
    """
    import shutil

    dd = _require_dask()
    import distributed

    from ._files.output import output_over_input
    from .columnar import ColumnarError

    refusal = output_over_input(source, output, "the output")
    if refusal is not None:
        raise ColumnarError(refusal)
    if os.path.exists(output) and (not os.path.isdir(output) or os.listdir(output)):
        raise ColumnarError(f"{output} already exists: remove it or choose another output directory")
    output = os.path.abspath(output)
    temp = os.path.join(os.path.dirname(output), f".{os.path.basename(output)}.part-{os.getpid()}")
    client_class: Any = distributed.Client  # untyped constructor
    try:
        with client_class(scheduler, timeout="20s"):
            frame = dd.read_parquet(os.path.abspath(source))
            labelled = probe_dataframe(frame, tables, fen_column=fen_column, dtz=dtz, threads=threads)
            labelled.to_parquet(temp, write_index=False)
            counts = dd.read_parquet(temp, columns=["status"])["status"].value_counts().compute()
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    if os.path.isdir(output):
        os.rmdir(output)  # empty (checked above)
    os.replace(temp, output)
    return {str(name): int(count) for name, count in counts.items() if int(count)}
