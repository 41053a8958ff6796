"""``pyfathom batch`` on Parquet / Arrow files and through Dask: the
command's extra options and the code that runs them (:mod:`pyfathom.columnar`
and :mod:`pyfathom.dask` do the work).  Kept apart from them so that building
the command's parser imports neither numpy nor pyarrow."""

from __future__ import annotations

import os
from typing import Any

# Suffix -> format. "arrow" is Arrow IPC: the file format, or the stream
# format for ".arrows" (the suffix decides how it is written; reading tries both).
_SUFFIX_FORMATS = {
    ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "arrow", ".feather": "arrow", ".ipc": "arrow", ".arrows": "arrow",
    ".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl",
}
COLUMNAR_FORMATS = ("parquet", "arrow")
FORMAT_NAMES = {"parquet": "Parquet", "arrow": "Arrow IPC"}


def format_of(path: str, default: str) -> str:
    """The format a path's suffix names (``parquet``, ``arrow``, ``csv``,
    ``jsonl``), else ``default``.

    >>> format_of("labels.parquet", "text"), format_of("x.FEN", "text"), format_of("o.arrows", "csv")
    ('parquet', 'text', 'arrow')
    """
    return _SUFFIX_FORMATS.get(os.path.splitext(path)[1].lower(), default)


# --- the command line: `pyfathom batch` on Parquet / Arrow files ----------------------------

_MAX_REPORTED = 100


def add_batch_arguments(parser: Any) -> None:
    """The batch command's options for columnar files and Dask."""
    parser.add_argument("--input-format", choices=("text", "parquet", "arrow"),
                        help="input format (default: from the suffix: .parquet/.pq, "
                             ".arrow/.feather/.ipc/.arrows, else FEN/EPD text)")
    parser.add_argument("--fen-column", default="fen", metavar="NAME",
                        help="Parquet/Arrow input: the column of FENs (default: fen; without "
                             "it, the bitboard columns white..pawns, ep, turn)")
    parser.add_argument("--dask", metavar="SCHEDULER", dest="dask",
                        help="run a Parquet file or dataset through a Dask cluster (address like "
                             "tcp://host:8786); -o names the output dataset directory "
                             "(needs pyfathom-syzygy[dask])")


def handles(args: Any) -> bool:
    """Resolve the batch command's formats; True when this module runs it
    (a Parquet/Arrow side, or --dask), False for text in and text out."""
    from .cli import CliError

    output = args.output if args.output and args.output != "-" else None
    if getattr(args, "dask", None):
        args.input_format = args.input_format or "parquet"  # a dataset is often a directory
    args.input_format = args.input_format or format_of(args.file, "text")
    if args.input_format in ("csv", "jsonl"):
        args.input_format = "text"
    args.format = args.format or (format_of(output, "csv") if output else "csv")
    if getattr(args, "dask", None):
        return True
    columnar_in = args.input_format in COLUMNAR_FORMATS
    columnar_out = args.format in COLUMNAR_FORMATS
    if not columnar_in and not columnar_out:
        return False
    if columnar_in != columnar_out:
        if columnar_in:
            raise CliError(f"a {FORMAT_NAMES[args.input_format]} input gives Parquet or Arrow output: "
                           f"-o FILE.parquet or -o FILE.arrow (or --format parquet / arrow)")
        raise CliError(f"{FORMAT_NAMES[args.format]} output needs a Parquet or Arrow input "
                       f"(FEN/EPD text gives csv or jsonl)")
    if output is None:
        raise CliError(f"{FORMAT_NAMES[args.format]} output needs a file: -o FILE")
    return True


def run_batch_command(args: Any) -> int:
    """``pyfathom batch`` for Parquet / Arrow files (or ``--dask``)."""
    import time

    from .cli import EXIT_FAIL, EXIT_OK, CliError, ProgressBar, _err, _open_tables
    from .columnar import ColumnarError, MissingExtraError, require_pyarrow, run_columnar_batch

    if args.threads is not None and args.threads < 0:
        raise CliError(f"--threads must be >= 0, not {args.threads}")
    try:
        require_pyarrow()
        if args.dask:
            from . import dask as pyfathom_dask

            return pyfathom_dask.run_batch_command(args)
    except MissingExtraError as e:
        raise CliError(str(e)) from None
    if args.file != "-" and not os.path.isfile(args.file):
        raise CliError(f"cannot read {args.file}: "
                       f"{'is a directory' if os.path.isdir(args.file) else 'no such file'}")
    tb = _open_tables(args.tables)
    bar = ProgressBar("batch", "rows")
    reported = 0

    def on_bad(row: int, text: str, reason: str) -> None:
        nonlocal reported
        reported += 1
        if reported <= _MAX_REPORTED:
            bar.close()
            shown = text if len(text) <= 100 else text[:97] + "..."
            _err(f"{args.file}: row {row}: {reason}: {shown!r}")
        elif reported == _MAX_REPORTED + 1:
            bar.close()
            _err("more bad rows not shown (see the status column)")

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
    elapsed = time.monotonic() - bar.start
    parts = ", ".join(f"{count} {name}" for name, count in (stats.by_status or {}).items()
                      if name != "ok" and count)
    summary = (f"{stats.lines} rows: {stats.probed} probed, {stats.bad} bad"
               + (f" ({parts})" if parts else "") + f" in {elapsed:.2f}s")
    if args.strict and stats.bad:
        summary += "; stopped at the first bad row (--strict)"
    _err(summary)
    return EXIT_FAIL if stats.bad else EXIT_OK
