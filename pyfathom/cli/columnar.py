"""``pyfathom batch`` on Parquet / Arrow files and through Dask: the batch
command's extra options (:func:`add_batch_arguments`) and the code that runs
it when a side is columnar or ``--dask`` is given (:func:`handles`,
:func:`run`); :mod:`pyfathom.columnar` and :mod:`pyfathom.dask` do the work.
Building the parser imports neither numpy nor pyarrow."""

from __future__ import annotations

import argparse
import os
import time

from ._common import (EXIT_FAIL, EXIT_OK, BadRowReporter, CliError, ProgressBar, UsageError,
                      check_output_is_not_input, err, open_tables)


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """The batch command's options for columnar files and Dask."""
    parser.add_argument("--input-format", choices=("text", "parquet", "arrow"),
                        help="input format (default: from the suffix: .parquet/.pq, "
                             ".arrow/.feather/.ipc/.arrows, else FEN/EPD text)")
    parser.add_argument("--fen-column", default="fen", metavar="NAME",
                        help="Parquet/Arrow input: the column of FENs (default: fen; without "
                             "it, the bitboard columns white..pawns, ep, turn)")
    parser.add_argument("--dask", metavar="SCHEDULER",
                        help="run a Parquet file or dataset directory through a Dask cluster "
                             "(address like tcp://host:8786) into a Parquet dataset, -o DIRECTORY "
                             "(needs pyfathom-syzygy[dask])")


def handles(args: argparse.Namespace) -> bool:
    """Resolve the batch command's formats from the suffixes; True when this
    module runs it (a Parquet/Arrow side, or --dask), False for text in and
    text out (``args.format`` is then csv or jsonl)."""
    from pyfathom.columnar import COLUMNAR_FORMATS, FORMAT_NAMES, format_of

    output = args.output if args.output and args.output != "-" else None
    if args.dask and not args.input_format and os.path.isdir(args.file):
        args.input_format = "parquet"  # a dataset directory
    args.input_format = args.input_format or format_of(args.file, "text")
    if args.input_format in ("csv", "jsonl"):
        args.input_format = "text"
    args.format = args.format or (format_of(output, "csv") if output else "csv")
    if args.dask:
        return True
    columnar_in = args.input_format in COLUMNAR_FORMATS
    columnar_out = args.format in COLUMNAR_FORMATS
    if not columnar_in and not columnar_out:
        return False
    if columnar_out and output is None:
        raise UsageError(f"{FORMAT_NAMES[args.format]} output needs a file: -o FILE")
    if args.carry:
        raise UsageError("--carry works with text input and output; a text file written as "
                         "Parquet or Arrow gets a line column, and Parquet/Arrow inputs keep "
                         "their own columns")
    return True


def run(args: argparse.Namespace) -> int:
    """``pyfathom batch`` for Parquet / Arrow files (or ``--dask``)."""
    from pyfathom.columnar import MissingExtraError, require_pyarrow

    try:
        require_pyarrow()
        if args.dask:
            return _run_dask(args)
    except MissingExtraError as e:
        raise CliError(str(e)) from None
    return _run_file(args)


def _run_file(args: argparse.Namespace) -> int:
    from pyfathom.columnar import ColumnarError, run_columnar_batch

    if args.output is None:
        args.output = "-"  # Parquet/Arrow input, CSV or JSON lines on stdout
    check_output_is_not_input(args.file, args.output)  # a usage error, as for text
    if args.file != "-" and not os.path.isfile(args.file):
        raise CliError(f"cannot read {args.file}: "
                       f"{'is a directory' if os.path.isdir(args.file) else 'no such file'}")
    tb = open_tables(args.tables, hot_prefix=getattr(args, "hot_prefix", None))
    bar = ProgressBar("batch", "rows")
    on_bad = BadRowReporter(bar, lambda row: f"{args.file}: row {row}", "rows", args.max_errors)

    try:
        stats = run_columnar_batch(
            tb, args.file, args.output, input_format=args.input_format, output_format=args.format,
            fen_column=args.fen_column, dtz=args.dtz, threads=args.threads, strict=args.strict,
            on_bad=on_bad, progress=lambda done, total: bar.update(done, total))
    except ColumnarError as e:
        raise CliError(str(e)) from None
    finally:
        bar.close()
        tb.close()
    parts = ", ".join(f"{count} {name}" for name, count in (stats.by_status or {}).items()
                      if name != "ok" and count)
    summary = (f"{stats.lines} rows: {stats.probed} probed, {stats.bad} bad"
               + (f" ({parts})" if parts else "") + f" in {time.monotonic() - bar.start:.2f}s")
    if args.strict and stats.bad:
        summary += "; stopped at the first bad row (--strict)"
    err(summary)
    return EXIT_FAIL if stats.bad else EXIT_OK


def _run_dask(args: argparse.Namespace) -> int:
    """A Parquet file or dataset through the cluster at ``--dask`` into a
    Parquet dataset (:func:`pyfathom.dask.probe_parquet_dataset`)."""
    from pyfathom import tables as table_files
    from pyfathom.columnar import FORMAT_NAMES, ColumnarError
    from pyfathom.dask import WorkerTablesError, probe_parquet_dataset

    if args.input_format != "parquet":
        raise UsageError(f"--dask reads a Parquet file (.parquet, .pq) or dataset directory, "
                         f"not {FORMAT_NAMES.get(args.input_format, 'FEN/EPD text')}: {args.file}")
    if not args.output or args.output == "-":
        raise CliError("--dask writes a Parquet dataset: -o DIRECTORY")
    if args.strict:
        raise CliError("--strict is not supported with --dask (the status column says which rows failed)")
    if not os.path.exists(args.file):
        raise CliError(f"cannot read {args.file}: no such file or directory")
    # The workers see the paths as given here, made absolute (they run elsewhere);
    # without --tables each worker uses its own $SYZYGY_PATH or download directory.
    tables = (tuple(str(p.resolve()) for p in table_files.table_dirs(args.tables)[0])
              if args.tables else None)
    start = time.monotonic()
    try:
        counts = probe_parquet_dataset(args.dask, args.file, args.output, tables,
                                       fen_column=args.fen_column, dtz=args.dtz,
                                       threads=args.threads or 1)
    except (ColumnarError, WorkerTablesError) as e:
        raise CliError(str(e)) from None
    except OSError as e:  # the scheduler cannot be reached, a file cannot be written
        raise CliError(f"the Dask run through {args.dask} failed: {e}") from None
    total = sum(counts.values())
    ok = counts.get("ok", 0)
    parts = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()) if name != "ok")
    err(f"{total} rows: {ok} probed, {total - ok} bad" + (f" ({parts})" if parts else "")
        + f" in {time.monotonic() - start:.2f}s on {args.dask}; results in {args.output}")
    return EXIT_FAIL if total != ok else EXIT_OK
