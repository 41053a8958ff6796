"""``pyfathom annotate GAMES.pgn``: mark the moves of PGN games that threw
away a tablebase win or draw (the annotator itself is
:mod:`pyfathom.annotate`; this module is its command line: files, stdout,
the report file, the progress bar and the exit status)."""

from __future__ import annotations

import argparse
import io
import sys
from typing import IO, Any, Optional

from pyfathom._files.output import Output

from ._common import (EXIT_FAIL, EXIT_OK, CliError, ProgressBar, UsageError, add_tables_argument,
                      check_output_is_not_input, err, open_input, open_tables)


def register(subparsers: Any) -> None:
    """Add ``annotate`` to the ``pyfathom`` command's sub-parsers."""
    p = subparsers.add_parser(
        "annotate", help="mark the moves of PGN games that threw away tablebase wins and draws",
        description="Read PGN games (python-chess's reader; - for stdin) and, from the first "
                    "position the tables cover, mark every move that worsens the mover's result "
                    "under the 50-move rule counted from the game's halfmove clock: '??' for a "
                    "change of result, '?' where only DTZ rounding at the 50-move limit makes "
                    "it one, with a comment naming the best move. The first position in the "
                    "tables gets a comment with its verdict. Everything else in the games is "
                    "kept as it was. Broken games and games of other variants are reported on "
                    "stderr and written back unchanged. Exit status 0 when every game was "
                    "read (games of other variants, only skipped, do not count against it) "
                    "and every position in range probed, 1 otherwise, 2 for wrong usage.")
    p.add_argument("file", metavar="GAMES.pgn",
                   help="PGN file (also gzip, bzip2 or xz compressed), or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT.pgn",
                   help="annotated PGN (default: stdout); a regular file is written to a "
                        "temporary file and renamed when done, a device, FIFO or - directly")
    add_tables_argument(p)
    p.add_argument("--report", metavar="REPORT",
                   help="one row per mistake and a summary: REPORT.csv or REPORT.jsonl")
    p.add_argument("--threads", type=int, metavar="N",
                   help="accepted for symmetry with 'batch'; only 1 is used: probes are per "
                        "position, and a second thread was measured to cost CPU without "
                        "saving time (see the README)")
    p.set_defaults(func=run)


def _report_format(path: str) -> str:
    lower = path.lower()
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith(".jsonl"):
        return "jsonl"
    raise UsageError(f"--report {path}: the name must end in .csv or .jsonl")


def _open_output(option: str, path: str) -> Output:
    """An output of the command (:class:`pyfathom._files.output.Output`: a regular
    file is renamed into place when done, anything else written directly)."""
    try:
        return Output(path, errors="surrogateescape")
    except OSError as e:
        raise CliError(f"cannot write {option} {path}: {e.strerror or e}") from None


def _open_source(path: str) -> tuple[io.TextIOWrapper, int, Any]:
    """The input as text (bytes that are not UTF-8 pass through unchanged;
    gzip, bzip2 and xz decompressed, binary files refused), its size in
    bytes as stored (0: unknown), and the opened input (to close)."""
    source = open_input(path, "PGN text")
    text = io.TextIOWrapper(source.stream, encoding="utf-8", errors="surrogateescape", newline="")
    return text, 0 if source.compression else source.size, source


def _stdout() -> IO[str]:
    out = sys.stdout
    reconfigure = getattr(out, "reconfigure", None)
    if reconfigure is not None:
        # Write the games' bytes back as read: no newline translation, and
        # bytes that were not UTF-8 go out unchanged.
        reconfigure(errors="surrogateescape", newline="")
    return out


def run(args: argparse.Namespace) -> int:
    """``pyfathom annotate``: returns the exit status."""
    from pyfathom.annotate import ReportWriter, annotate_stream

    if args.threads is not None and args.threads < 0:
        raise UsageError(f"--threads must be >= 0, not {args.threads}")
    report_fmt = _report_format(args.report) if args.report else None
    to_file = bool(args.output) and args.output != "-"
    for option, name in (("-o", args.output if to_file else None), ("--report", args.report)):
        if name:
            check_output_is_not_input(args.file, name, option)
    source, size, opened = _open_source(args.file)
    pending: list[Output] = []
    try:
        tb = open_tables(args.tables, hot_prefix=args.hot_prefix)
        try:
            if to_file:
                pending.append(_open_output("-o", args.output))
                out = pending[-1].file
            else:
                out = _stdout()
            report: Optional[ReportWriter] = None
            if args.report and report_fmt:
                pending.append(_open_output("--report", args.report))
                report = ReportWriter(pending[-1].file, report_fmt)
            bar = ProgressBar("annotate", "games")

            def warn(text: str) -> None:
                bar.close()
                err(text)

            def progress(games: int, chars: int) -> None:
                if not bar.enabled:
                    return
                label = f"annotate {min(chars / size, 1.0) * 100:5.1f}%" if size else None
                bar.update(games, 0, label=label)

            try:
                summary = annotate_stream(tb, source, out, report=report.row if report else None,
                                          warn=warn, progress=progress)
            finally:
                bar.close()
            if report is not None:
                report.summary(summary)
            out.flush()
            for f in pending:
                f.commit()
            pending = []
        except OSError as e:
            raise CliError(f"cannot write: {e.strerror or e}") from None
        finally:
            tb.close()
    finally:
        for f in pending:
            f.discard()
        source.detach()  # the opened input closes its own streams (never stdin)
        opened.close()
    err(summary.text())
    return EXIT_OK if summary.ok else EXIT_FAIL
