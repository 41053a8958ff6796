"""``pyfathom info [MATERIAL ...]``: the tables found, and what a material needs."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import chess.syzygy

from ._common import EXIT_FAIL, EXIT_OK, CliError, add_tables_argument, download_hint, open_tables


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "info", help="tables found, largest, and what a material needs",
        description="Show the tables found per piece count and the largest; for "
                    "each MATERIAL (e.g. KRPvKR) list the needed tables that are missing "
                    "(the table itself and those reached by captures and promotions); exit status 1 "
                    "when some are missing.")
    p.add_argument("materials", nargs="*", metavar="MATERIAL")
    add_tables_argument(p)
    p.set_defaults(func=run)


def normalize_material(material: str) -> str:
    """The Syzygy file stem for a material: ``KRvKQ`` -> ``KQvKR``
    (:func:`chess.syzygy.normalize_tablename`), or CliError for a name that
    is not a material with one king a side."""
    name = material.strip()
    if name != "KvK" and not chess.syzygy.is_tablename(name, normalized=False, piece_count=None):
        raise CliError(f"not a material like KRPvKR: {material!r}")
    return chess.syzygy.normalize_tablename(name)


def needed_materials(material: str) -> list[str]:
    """The table itself plus every table reachable by captures and promotions
    (:func:`chess.syzygy.all_dependencies`), most pieces first; none for
    KvK, a draw no table holds."""
    start = normalize_material(material)
    return sorted(chess.syzygy.all_dependencies([start]), key=lambda k: (-(len(k) - 1), k))


def run(args: argparse.Namespace) -> int:
    from pyfathom import download

    dirs, origin = download.table_dirs(args.tables)
    files = download.find_table_files(dirs)
    out = sys.stdout
    out.write("directories: " + os.pathsep.join(str(d) for d in dirs) + f" ({origin})\n")
    if not files:
        raise CliError(
            f"no Syzygy tables found in {os.pathsep.join(str(d) for d in dirs)}; "
            f"run: {download_hint(dirs, origin)}"
        )
    counts: dict[int, list[int]] = {}
    for name in files:
        pieces = len(name.split(".")[0]) - 1
        wdl_dtz = counts.setdefault(pieces, [0, 0])
        wdl_dtz[0 if name.endswith(".rtbw") else 1] += 1
    for pieces in sorted(counts):
        wdl, dtz = counts[pieces]
        out.write(f"{pieces}-piece tables: {wdl} WDL, {dtz} DTZ\n")
    tb = open_tables(args.tables)
    try:
        largest = tb.largest
    finally:
        tb.close()
    out.write(f"largest: {largest} pieces\n")
    status = EXIT_OK
    for material in args.materials:
        needed = needed_materials(material)
        missing = [f"{m}.{ext}" for m in needed for ext in ("rtbw", "rtbz") if f"{m}.{ext}" not in files]
        name = normalize_material(material)
        if not needed:
            out.write(f"{name}: no table needed (always a draw)\n")
        elif missing:
            status = EXIT_FAIL
            out.write(f"{name}: needs {len(needed)} tables, missing {len(missing)} files: {' '.join(missing)}\n")
        else:
            out.write(f"{name}: all {len(needed)} needed tables present ({' '.join(needed)})\n")
    return status
