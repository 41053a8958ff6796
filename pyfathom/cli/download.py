"""``pyfathom download``: the default 3-4-piece tables, or a mirror of a table set."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._common import EXIT_FAIL, EXIT_OK, CliError, ProgressBar, err


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "download", help="fetch the 3-4-piece tables, or mirror a table set",
        description="Without --source: fetch the 35 regular 3- and 4-piece tables "
                    "(70 files, 4.5 MB) from python-chess 1.11.2's source distribution "
                    "with pip, checking every checksum. With --source: mirror the "
                    ".rtbw/.rtbz files of an HTTP directory listing or a local folder, "
                    "resuming partial files.")
    p.add_argument("--dest", metavar="DIR", help="destination directory (default: the per-user data "
                                                 "directory, $PYFATHOM_HOME/syzygy if set)")
    p.add_argument("--source", metavar="URL_OR_DIR", help="HTTP index URL or local folder to mirror")
    p.add_argument("--checksums", metavar="FILE", help="sha256sum-format file to verify mirrored files")
    p.add_argument("--archive", metavar="FILE",
                   help="use this already downloaded chess-1.11.2.tar.gz instead of fetching it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pyfathom import download

    dest = Path(args.dest).expanduser() if args.dest else download.default_dir()
    if args.source:
        return _mirror(args, dest)
    if args.checksums:
        raise CliError("--checksums needs --source")
    bar = ProgressBar("extracting", "files")
    try:
        written = download.download_default(
            dest, archive=args.archive,
            progress=lambda name, i, total: bar.update(i, total, force=i == total),
            log=lambda text: err(text) if bar.enabled else None,
        )
    except download.DownloadError as e:
        raise CliError(str(e)) from None
    finally:
        bar.close()
    if written == 0:
        print(f"nothing to do: all 70 tables are already in {dest}")
    else:
        print(f"downloaded {written} table files to {dest} (checksums verified)")
    return EXIT_OK


def _mirror(args: argparse.Namespace, dest: Path) -> int:
    from pyfathom import download

    bar = ProgressBar("", "B")
    try:
        checksums = download.read_checksums(args.checksums) if args.checksums else None
        result = download.mirror(
            args.source, dest, checksums=checksums,
            progress=lambda name, done, total: bar.update(done, total, label=name),
        )
    except download.DownloadError as e:
        raise CliError(str(e)) from None
    finally:
        bar.close()
    for name, reason in result.failed:
        err(f"{name}: {reason}" if not reason.startswith(name) else reason)
    if not result.fetched and not result.failed:
        print(f"nothing to do: all {len(result.skipped)} table files are already in {dest}")
    else:
        print(f"{len(result.fetched)} fetched, {len(result.skipped)} already present, "
              f"{len(result.failed)} failed -> {dest}")
    return EXIT_FAIL if result.failed else EXIT_OK
