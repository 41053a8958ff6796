"""``pyfathom batch FILE``: probe every line of a FEN / EPD file, one row per
line (the streaming itself is :mod:`pyfathom.batch_files`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import IO, Any

from pyfathom._files.output import Output

from ._common import (EXIT_FAIL, EXIT_OK, BadRowReporter, CliError, ProgressBar, UsageError,
                      add_tables_argument, add_variant_argument, check_output_is_not_input, err,
                      open_input, open_tables)

MAX_REPORTED = 100
"""Bad lines reported on stderr one by one by default (``--max-errors``);
the rest are only counted (the status column has every one)."""

THREADS_PER_CORE = 4
"""``--threads`` may be up to this many times the cores (more only adds
switching)."""


def register(subparsers: Any) -> None:
    from . import columnar

    cores = os.cpu_count() or 1
    p = subparsers.add_parser(
        "batch", help="probe a file of FEN/EPD lines",
        description="Probe every line of a FEN or EPD file (or - for stdin), streamed "
                    "in chunks; one output row (fen, wdl, dtz, status) per position line, "
                    "in order. A gzip, bzip2 or xz file is read as the text it holds "
                    "(recognised by its first bytes); a binary file or archive is refused. "
                    "Blank lines and comment lines (first non-blank character "
                    "'#') are skipped: no row, not counted as bad. A UTF-8 byte-order mark "
                    "is ignored. In the output, bytes of a bad line that are not UTF-8 are "
                    "replaced by U+FFFD, and control characters (NUL, ...) by U+FFFD in CSV "
                    "and escaped (\\u0000) in JSON lines. Bad lines are reported on "
                    "stderr with their line numbers (the first --max-errors of them). "
                    "With -o, rows for a regular file go to a hidden temporary file in OUT's "
                    "folder that is renamed to OUT when the run ends, so an interrupted run "
                    "(Ctrl-C, SIGTERM, SIGHUP) never leaves a partial OUT; a device, FIFO, "
                    "socket, - or /dev/stdout is written directly; OUT may not be the input "
                    "(by name or link). "
                    "Exit status 0 when every line was probed, 1 otherwise, 2 for wrong usage. "
                    "A Parquet or Arrow file (by suffix, or --input-format) gives a Parquet or "
                    "Arrow file: its columns plus wdl, dtz (with --dtz) and status; --dask runs "
                    "a Parquet dataset through a Dask cluster.")
    p.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    add_tables_argument(p)
    p.add_argument("--threads", type=int, metavar="N",
                   help=f"probe threads, 1 to {THREADS_PER_CORE * cores} "
                        f"({THREADS_PER_CORE} x the {cores} cores; default: every core)")
    p.add_argument("--dtz", action="store_true", help="also probe DTZ")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl", "parquet", "arrow"),
                   help="output format (default: from the suffix of -o, else csv)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.add_argument("--max-errors", type=int, metavar="N", default=MAX_REPORTED,
                   help=f"report at most N bad lines on stderr (default {MAX_REPORTED}; 0: none; "
                        "the status column and the summary count every one)")
    p.add_argument("--carry", metavar="FIELDS", type=_carry_fields, default=(),
                   help="extra output columns, comma-separated: 'line' (the input line number) "
                        "and EPD opcodes such as 'id' (their operands, unquoted; empty where a "
                        "line has none), e.g. --carry line,id")
    columnar.add_batch_arguments(p)
    add_variant_argument(p)
    p.set_defaults(func=run)


def _carry_fields(value: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in value.split(",") if name.strip())
    bad = [n for n in names if not (n[:1].isalpha() and n.replace("_", "").isalnum())]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"not field names: {value!r} (e.g. line,id)")
    if len(set(names)) != len(names) or set(names) & {"fen", "wdl", "dtz", "status"}:
        raise argparse.ArgumentTypeError(f"{value!r} repeats a field or names a result column")
    return names


def run(args: argparse.Namespace) -> int:
    from pyfathom import batch_files

    from . import columnar

    cores = os.cpu_count() or 1
    if args.threads is not None and not 1 <= args.threads <= THREADS_PER_CORE * cores:
        raise UsageError(f"--threads must be between 1 and {THREADS_PER_CORE * cores} "
                         f"({THREADS_PER_CORE} x {cores} cores), not {args.threads}")
    if args.max_errors < 0:
        raise UsageError(f"--max-errors must be >= 0, not {args.max_errors}")
    if columnar.handles(args):  # Parquet / Arrow files, or --dask
        if getattr(args, "variant", "chess") != "chess":
            raise UsageError("--variant works with FEN/EPD text input; Parquet, Arrow and "
                             "--dask runs probe standard chess only")
        return columnar.run(args)
    to_file = bool(args.output) and args.output != "-"
    if to_file:
        check_output_is_not_input(args.file, args.output)
        if os.path.isdir(args.output):
            raise CliError(f"cannot write {args.output}: it is a directory")
    source = open_input(args.file, "FEN/EPD text")
    stream, size = source.stream, source.size
    try:
        tb = open_tables(args.tables, getattr(args, "variant", None), args.hot_prefix)
    except BaseException:
        source.close()
        raise
    out_file: IO[str]
    partial: Output | None = None
    if to_file:
        try:
            partial = Output(args.output)
        except OSError as e:
            tb.close()
            raise CliError(f"cannot write {args.output}: {e.strerror or e}") from None
        out_file = partial.file
    else:
        out_file = sys.stdout
    bar = ProgressBar("batch", "lines")
    on_bad = BadRowReporter(bar, lambda line: f"{args.file}:{line}", "lines", args.max_errors)

    def progress(lines: int, nbytes: int) -> None:
        # The bar and the ETA follow the bytes read (the size is known, the
        # line count is not); the count and the rate are in lines.
        bar.update(source.position() if source.compression else nbytes, size, count=lines)

    finished = False
    try:
        stats = batch_files.run_batch(
            tb, stream, out_file, fmt=args.format, dtz=args.dtz,
            threads=args.threads, strict=args.strict, on_bad=on_bad, progress=progress,
            carry=args.carry,
        )
        finished = True
    finally:
        bar.close()
        tb.close()
        if partial is not None:
            if finished:
                try:
                    partial.commit()  # a regular OUT is renamed only now: never a partial OUT
                except OSError as e:
                    raise CliError(f"cannot write {args.output}: {e.strerror or e}") from None
            else:
                partial.discard()
        else:
            out_file.flush()
        source.close()
    elapsed = time.monotonic() - bar.start
    parts = ", ".join(f"{count} {name}" for name, count in (stats.by_status or {}).items()
                      if name != "ok" and count)
    summary = (f"{stats.lines} lines: {stats.probed} probed, {stats.bad} bad"
               + (f" ({parts})" if parts else "")
               + (f", {stats.skipped} skipped (blank or comment)" if stats.skipped else "")
               + f" in {elapsed:.2f}s")
    if args.strict and stats.bad:
        summary += "; stopped at the first bad line (--strict)"
    err(summary)
    return EXIT_FAIL if stats.bad else EXIT_OK
