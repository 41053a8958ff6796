"""``pyfathom prefix OUTDIR [MATERIAL ...] [--upto block-lengths|sparse-index]``:
write the prefix files of the tables found (lila-tablebase's
``syzygy-prefix.py``), for ``--hot-prefix OUTDIR`` on faster storage."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ._common import EXIT_OK, CliError, add_tables_argument, os_error_text
from .warm import selected_files


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "prefix", help="write prefix files (a table's head, for --hot-prefix)",
        description="Write, into OUTDIR, the prefix file of each table file found (or of "
                    "the MATERIALs named): KRvK.rtbw.prefix holds KRvK.rtbw's first bytes, "
                    "up to its first data block (--upto block-lengths, the default) or its "
                    "first block-length table (--upto sparse-index), rounded up to 16 KiB, "
                    "as lila-tablebase's syzygy-prefix.py writes them. Keep OUTDIR on fast "
                    "storage and pass it as --hot-prefix OUTDIR: a cold probe then reads "
                    "only its block from the table file.")
    p.add_argument("outdir", metavar="OUTDIR", type=Path)
    p.add_argument("materials", nargs="*", metavar="MATERIAL")
    add_tables_argument(p)
    p.add_argument("--upto", default="block-lengths",
                   help="block-lengths (default) or sparse-index")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pyfathom import tables

    if args.hot_prefix:
        raise CliError("--hot-prefix: prefix reads the table files themselves")
    if args.upto not in ("block-lengths", "sparse-index"):
        raise CliError(f"--upto must be block-lengths or sparse-index, not {args.upto!r}")
    paths = selected_files(args.tables, args.materials)
    if not paths:
        raise CliError("no table files found")
    outdir: Path = args.outdir
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CliError(f"cannot make {str(outdir)!r}: {os_error_text(e)}") from None
    sources = {p.resolve().parent for p in paths}
    if outdir.resolve() in sources:
        # Harmless to the tables, but a prefix beside its own table
        # spares no read: say so rather than write it.
        raise CliError(f"{str(outdir)!r} holds the tables themselves: write the prefix "
                       "files to a folder on faster storage")
    total = written = 0
    for path in paths:
        try:
            length = tables.write_prefix(path, outdir, upto=args.upto)
        except OSError as e:
            raise CliError(f"{path.name}: {os_error_text(e)}") from None
        except ValueError as e:  # not a table file the layout reader knows
            raise CliError(f"{path}: {e}") from None
        if length:
            written += 1
            total += length
            print(f"{path.name}.prefix  {length:>12,} bytes  "
                  f"({100 * length / max(1, os.path.getsize(path)):.1f}% of the table)")
    print(f"{written} prefix files, {total:,} bytes, in {outdir}", file=sys.stderr)
    return EXIT_OK
