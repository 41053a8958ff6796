"""``pyfathom info [MATERIAL ...] [--check]``: the tables found, what a
material needs, and which table files are damaged."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import chess.syzygy

from ._common import (EXIT_FAIL, EXIT_OK, CliError, ProgressBar, UsageError, add_tables_argument,
                      find_tables, normalize_material, open_tables)
from .._files.output import raise_if_signalled

MAX_PIECES = 7
"""The largest Syzygy tables hold 7 pieces."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "info", help="tables found, largest, what a material needs, damaged files",
        description="Show the folders tables were found in, the tables per piece count "
                    "and the largest; for each MATERIAL (e.g. KRPvKR) list the needed tables "
                    "that are missing (the table itself and those reached by captures and "
                    "promotions). With --check, read every table file found as a probe "
                    "would (header, sizes, every index entry and block) and list the damaged "
                    "ones. Exit status 1 when a needed table is missing or a file is damaged.")
    p.add_argument("materials", nargs="*", metavar="MATERIAL")
    add_tables_argument(p)
    p.add_argument("--check", action="store_true",
                   help="read every table file found and list the damaged ones (about as "
                        "long as copying the files); files of the 3-4-piece set are also "
                        "compared with their published sha256")
    p.add_argument("--checksums", metavar="FILE",
                   help="with --check: a sha256sum-format file of published checksums "
                        "(e.g. of a 6-piece set) to compare the files with too")
    p.add_argument("--resident", action="store_true",
                   help="show how much of each table file, and of its index parts, is in "
                        "the page cache (mincore; reads only the headers), as warm --dry-run")
    p.set_defaults(func=run)


def needed_materials(material: str) -> list[str]:
    """The table itself plus every table reachable by captures and promotions
    (:func:`chess.syzygy.all_dependencies`), most pieces first; none for
    KvK, a draw no table holds."""
    start = normalize_material(material)
    return sorted(chess.syzygy.all_dependencies([start]), key=lambda k: (-(len(k) - 1), k))


def run(args: argparse.Namespace) -> int:
    from pyfathom import tables

    if args.checksums and not args.check:
        raise UsageError("--checksums needs --check")
    folders, dirs, origin = find_tables(args.tables)
    files = tables.find_table_files(folders)
    out = sys.stdout
    out.write("directories: " + os.pathsep.join(str(d) for d in dirs) + f" ({origin})\n")
    if folders != dirs:
        out.write("tables found in: " + os.pathsep.join(str(f) for f in folders) + "\n")
    counts: dict[int, list[int]] = {}
    for name in files:
        pieces = len(name.split(".")[0]) - 1
        wdl_dtz = counts.setdefault(pieces, [0, 0])
        wdl_dtz[0 if name.endswith(".rtbw") else 1] += 1
    for pieces in sorted(counts):
        wdl, dtz = counts[pieces]
        out.write(f"{pieces}-piece tables: {wdl} WDL, {dtz} DTZ\n")
    tb = open_tables(args.tables, hot_prefix=args.hot_prefix)
    try:
        largest = tb.largest
    finally:
        tb.close()
    out.write(f"largest: {largest} pieces\n")
    status = EXIT_OK
    for material in args.materials:
        name = normalize_material(material)
        pieces = len(name) - 1
        if pieces > MAX_PIECES:
            status = EXIT_FAIL
            out.write(f"{name}: {pieces} pieces; Syzygy tables stop at {MAX_PIECES}\n")
            continue
        needed = needed_materials(material)
        missing = [f"{m}.{ext}" for m in needed for ext in ("rtbw", "rtbz") if f"{m}.{ext}" not in files]
        if not needed:
            out.write(f"{name}: no table needed (always a draw)\n")
        elif missing:
            status = EXIT_FAIL
            out.write(f"{name}: needs {len(needed)} tables, missing {len(missing)} files: {' '.join(missing)}\n")
        else:
            out.write(f"{name}: all {len(needed)} needed tables present ({' '.join(needed)})\n")
    if args.resident:
        from .warm import print_residency

        print_residency(sorted((p for found in files.values() for p in found), key=str))
    if args.check:
        out.flush()
        if _check(files, args.checksums):
            status = EXIT_FAIL
    return status


def _check(files: dict[str, list[Path]], checksums_file: str | None) -> bool:
    """Check every file found (``info --check``); print the damaged ones.
    True when some are damaged."""
    from pyfathom import download, tables

    checksums = tables.published_checksums()
    if checksums_file:
        try:
            checksums.update(download.read_checksums(checksums_file))
        except (OSError, ValueError) as e:
            raise CliError(f"cannot read checksums {checksums_file}: {e}") from None
    paths = sorted((p for found in files.values() for p in found), key=str)
    total_bytes = sum(p.stat().st_size for p in paths if p.exists())
    bar = ProgressBar("checking", "files")
    done_bytes = 0

    def progress(path: Path, done: int, total: int) -> None:
        nonlocal done_bytes
        done_bytes += path.stat().st_size if path.exists() else 0
        bar.update(done_bytes, total_bytes, count=done)
        raise_if_signalled()  # a Ctrl-C whose exception C code swallowed

    start = time.monotonic()
    try:
        damaged = tables.check_tables(paths, checksums=checksums, progress=progress)
    finally:
        bar.close()
    out = sys.stdout
    compared = sum(1 for p in paths if p.name in checksums)
    summary = (f"checked {len(paths)} files ({total_bytes / 1e6:.1f} MB, {compared} against "
               f"published checksums) in {time.monotonic() - start:.1f}s")
    if damaged:
        out.write(f"{summary}: {len(damaged)} damaged\n")
        for damage in damaged:
            out.write(f"  damaged: {damage}\n")
    else:
        out.write(f"{summary}: none damaged\n")
    return bool(damaged)
