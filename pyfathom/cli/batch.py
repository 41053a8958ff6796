"""``pyfathom batch FILE``: probe every line of a FEN / EPD file, one row per
line (the streaming itself is :mod:`pyfathom.batch_files`)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import IO, Any

from ._common import EXIT_FAIL, EXIT_OK, CliError, ProgressBar, add_tables_argument, err, open_tables

MAX_REPORTED = 100
"""Bad lines reported on stderr one by one; the rest are only counted."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "batch", help="probe a file of FEN/EPD lines",
        description="Probe every line of a FEN or EPD file (or - for stdin), streamed "
                    "in chunks; one output row (fen, wdl, dtz, status) per input line, "
                    "in order. Bad lines are reported on stderr with their line numbers. "
                    "Exit status 0 when every line was probed, 1 otherwise.")
    p.add_argument("file", metavar="FILE", help="input file, or - for stdin")
    add_tables_argument(p)
    p.add_argument("--threads", type=int, metavar="N", help="probe threads (default: every core)")
    p.add_argument("--dtz", action="store_true", help="also probe DTZ")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format (default: csv)")
    p.add_argument("--strict", action="store_true", help="stop at the first bad line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pyfathom import batch_files

    if args.threads is not None and args.threads < 0:
        raise CliError(f"--threads must be >= 0, not {args.threads}")
    try:
        stream, size = batch_files.open_input(args.file)
    except OSError as e:
        raise CliError(f"cannot read {args.file}: {e.strerror or e}") from None
    tb = open_tables(args.tables)
    out_file: IO[str]
    if args.output and args.output != "-":
        try:
            out_file = open(args.output, "w", encoding="utf-8", newline="")
        except OSError as e:
            tb.close()
            raise CliError(f"cannot write {args.output}: {e.strerror or e}") from None
    else:
        out_file = sys.stdout
    bar = ProgressBar("batch", "lines")
    reported = 0

    def on_bad(line: int, text: str, reason: str) -> None:
        nonlocal reported
        reported += 1
        if reported <= MAX_REPORTED:
            bar.close()
            shown = text if len(text) <= 100 else text[:97] + "..."
            err(f"{args.file}:{line}: {reason}: {shown!r}")
        elif reported == MAX_REPORTED + 1:
            bar.close()
            err("more bad lines not shown (see the status column)")

    def progress(lines: int, nbytes: int) -> None:
        # The bar and the ETA follow the bytes read (the size is known, the
        # line count is not); the count and the rate are in lines.
        bar.update(nbytes, size, count=lines)

    try:
        stats = batch_files.run_batch(
            tb, stream, out_file, fmt=args.format, dtz=args.dtz,
            threads=args.threads, strict=args.strict, on_bad=on_bad, progress=progress,
        )
    finally:
        bar.close()
        tb.close()
        if out_file is not sys.stdout:
            out_file.close()
        else:
            out_file.flush()
        if stream is not sys.stdin.buffer:
            stream.close()
    elapsed = time.monotonic() - bar.start
    parts = ", ".join(f"{count} {name}" for name, count in (stats.by_status or {}).items()
                      if name != "ok" and count)
    summary = (f"{stats.lines} lines: {stats.probed} probed, {stats.bad} bad"
               + (f" ({parts})" if parts else "")
               + f" in {elapsed:.2f}s")
    if args.strict and stats.bad:
        summary += "; stopped at the first bad line (--strict)"
    err(summary)
    return EXIT_FAIL if stats.bad else EXIT_OK
