"""``pyfathom warm [MATERIAL ...] [--what index|wdl|all]``: load parts of the
table files into the page cache, then show how much of each is resident."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ._common import (EXIT_OK, CliError, ProgressBar, add_tables_argument, find_tables,
                      normalize_material)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "warm", help="load table parts into the page cache; show residency",
        description="Load parts of the table files found (or of the MATERIALs named, e.g. "
                    "KQRBvKQR) into the page cache: --what index (header, sparse indexes and "
                    "block-length tables: a small share of each file, after which a cold "
                    "WDL probe costs about one read), wdl (whole WDL files, index parts of "
                    "DTZ files) or all. Then print how much of each file is resident.")
    p.add_argument("materials", nargs="*", metavar="MATERIAL")
    add_tables_argument(p)
    p.add_argument("--what", default="index", help="index (default), wdl or all")
    p.add_argument("--method", default="read",
                   help="read (default: read the ranges) or advise (ask the kernel, "
                        "POSIX_FADV_WILLNEED, and return at once)")
    p.add_argument("--dry-run", action="store_true", help="only show residency")
    p.set_defaults(func=run)


def selected_files(tables: Any, materials: list[str]) -> list[Path]:
    from pyfathom import tables as tables_module


    folders, _, _ = find_tables(tables)
    files = tables_module.find_table_files(folders)
    if not materials:
        return sorted((p for found in files.values() for p in found), key=str)
    chosen = []
    for material in materials:
        name = normalize_material(material)
        found = [p for ext in ("rtbw", "rtbz") for p in files.get(f"{name}.{ext}", [])]
        if not found:
            raise CliError(f"no table files for {name} in the tables found")
        chosen += found
    return chosen


def run(args: argparse.Namespace) -> int:
    from pyfathom._disk import page_cache as _page_cache

    if args.hot_prefix:
        raise CliError("--hot-prefix: warm reads table files only (prefix files are "
                       "small: reading them whole, e.g. with cat, loads them)")
    if args.what not in _page_cache.WHAT_CHOICES:
        raise CliError(f"--what must be index, wdl or all, not {args.what!r}")
    if args.method not in ("read", "advise"):
        raise CliError(f"--method must be read or advise, not {args.method!r}")
    paths = selected_files(args.tables, args.materials)
    if not paths:
        raise CliError("no table files found")
    if not args.dry_run:
        bar = ProgressBar("warming", "bytes")
        try:
            _page_cache.warm(paths, args.what, args.method,
                             progress=lambda done, total: bar.update(done, total))
        except OSError as e:
            raise CliError(f"cannot warm: {e}") from None
        finally:
            bar.close()
    print_residency(paths)
    return EXIT_OK


def print_residency(paths: list[Path]) -> None:
    from pyfathom._disk import page_cache as _page_cache

    out = sys.stdout
    for path in paths:
        try:
            r = _page_cache.residency(path)
        except OSError as e:
            raise CliError(str(e)) from None
        out.write(f"{path.name}: {r.resident / 1e6:.1f} of {r.size / 1e6:.1f} MB resident "
                  f"({100 * r.fraction:.0f}%), index parts {r.index_resident / 1e6:.2f} of "
                  f"{r.index_size / 1e6:.2f} MB ({100 * r.index_fraction:.0f}%)\n")
