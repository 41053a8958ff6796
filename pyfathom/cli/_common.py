"""What every ``pyfathom`` command shares: the error type and exit statuses,
table lookup, the progress bar and one-line messages on stderr.

A command module imports these; nothing here knows any one command.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import chess.syzygy

__all__ = ["PROG", "EXIT_OK", "EXIT_FAIL", "EXIT_USAGE", "CliError", "UsageError", "err", "os_error_text",
           "open_input", "check_output_is_not_input", "add_tables_argument", "add_variant_argument", "download_hint", "find_tables", "open_tables", "ProgressBar",
           "normalize_material"]

PROG = "pyfathom"

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


class CliError(Exception):
    """An error shown as one line on stderr; exit status EXIT_FAIL."""


class UsageError(CliError):
    """Wrong usage found after parsing (e.g. an output that is the input):
    one line on stderr, exit status EXIT_USAGE."""


def os_error_text(e: OSError) -> str:
    """An OSError as one line naming the file once: ``/x/y: Read-only file
    system`` (no errno, no exception name)."""
    reason = e.strerror or str(e)
    names = [str(name) for name in (e.filename, e.filename2) if name is not None]
    return f"{' -> '.join(names)}: {reason}" if names else reason


def err(message: str) -> None:
    """Write ``pyfathom: message`` as one line on stderr."""
    sys.stderr.write(f"{PROG}: {message}\n")
    sys.stderr.flush()


def open_input(path: str, what: str) -> Any:
    """A command's text input (:func:`pyfathom._files.text_input.open_text_input`:
    compressed files decompressed, binary ones refused), or CliError."""
    from pyfathom._files.text_input import BinaryInputError, open_text_input

    try:
        return open_text_input(path, what)
    except BinaryInputError as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None


# --- tables -----------------------------------------------------------------------


def check_output_is_not_input(input_path: str, output: str, option: str = "-o") -> None:
    """UsageError when the output ``option`` names is the input file
    (:func:`pyfathom._files.output.output_over_input`, the one check)."""
    from pyfathom._files.output import output_over_input

    refusal = output_over_input(input_path, output, option)
    if refusal is not None:
        raise UsageError(refusal)


def add_tables_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--tables DIR`` option, the same for every command."""
    parser.add_argument("--tables", action="append", metavar="DIR",
                        help="table directory (repeatable, or a list separated by "
                             f"{os.pathsep!r}); the folders one level below it are searched too "
                             "(syzygy/3-4-5-wdl, syzygy/6-dtz, ...); default: $SYZYGY_PATH, "
                             "else the download directory")
    parser.add_argument("--hot-prefix", action="append", metavar="DIR",
                        help="folder of prefix files (KRvK.rtbw.prefix: a table's first bytes "
                             "on fast storage, as lila-tablebase's --hot-prefix; repeatable)")


def download_hint(dirs: Sequence[Path], origin: str) -> str:
    """The command that fills the directories looked up (for error messages)."""
    if origin == "default":
        return f"{PROG} download"
    return f"{PROG} download --dest {shlex.quote(str(dirs[0]))}"


def find_tables(explicit: Sequence[str] | None,
                variant: str = "chess") -> tuple[list[Path], list[Path], str]:
    """(folders holding tables of ``variant``, folders looked up, where the
    lookup came from) for ``--tables`` values, else ``$SYZYGY_PATH``, else
    the download directory; each looked-up folder and the folders one level
    below it count (``syzygy/3-4-5-wdl``, ``syzygy/6-dtz``, ...:
    :func:`pyfathom.tables.table_folders`).  Raises CliError when a
    ``--tables`` folder does not exist, or when no table is found."""
    from pyfathom import tables

    dirs, origin = tables.table_dirs(explicit)
    source = {"--tables": "--tables", "SYZYGY_PATH": "$SYZYGY_PATH",
              "default": "the default directory"}[origin]
    absent = [d for d in dirs if not d.is_dir()]
    if origin == "--tables" and absent:
        what = "not a directory" if absent[0].exists() else "no such directory"
        raise CliError(f"--tables {absent[0]}: {what}")
    folders = tables.table_folders(dirs, variant)
    if not folders:
        where = os.pathsep.join(str(d) for d in dirs)
        if len(absent) == len(dirs) and origin != "default":
            raise CliError(f"{source} names no existing directory ({where})")
        if variant != "chess":  # pyfathom download fetches standard tables only
            raise CliError(f"no {variant} Syzygy tables found in {where} or the folders one "
                           f"level below ({source}; see --tables)")
        raise CliError(
            f"no Syzygy tables found in {where} or the folders one level below ({source}); "
            f"run: {download_hint(dirs, origin)}"
        )
    return folders, dirs, origin


VARIANTS = ("chess", "atomic", "suicide", "giveaway", "antichess")
"""The games of ``--variant`` (python-chess's uci_variant names)."""


def add_variant_argument(parser: argparse.ArgumentParser) -> None:
    """The ``--variant`` option of probe and batch."""
    parser.add_argument("--variant", choices=VARIANTS, default="chess",
                        help="the game of the positions and tables (default: chess)")


def open_tables(explicit: Sequence[str] | None, variant: str | None = None,
                hot_prefix: Sequence[str] | None = None) -> Any:
    """Open a Tablebase over the folders :func:`find_tables` finds (for a
    ``--variant``, with that game's board class and tables), or raise
    CliError."""
    import chess

    import pyfathom

    game = variant or "chess"
    folders, _, _ = find_tables(explicit, game)
    if game == "chess":
        board_class: type[chess.Board] = chess.Board
    else:  # chess.variant is imported only for a variant
        import chess.variant

        board_class = chess.variant.find_variant(game)
    tb = pyfathom.Tablebase(VariantBoard=board_class)
    for folder in folders:
        tb.add_directory(str(folder))
    for prefix_dir in hot_prefix or ():
        try:
            tb.add_prefix_directory(prefix_dir)
        except OSError as e:
            tb.close()
            raise CliError(f"--hot-prefix {prefix_dir}: {os_error_text(e)}") from None
    return tb


# --- progress bar (stderr, TTY only) ------------------------------------------


class ProgressBar:
    """A one-line progress bar on stderr, drawn only when stderr is a TTY.

    ``update(done, total)`` redraws at most ten times a second: the bar, the
    percentage and the ETA follow ``done`` out of ``total`` (0: unknown, no
    bar and no ETA); the count and the rate show ``count`` in ``unit`` when
    it is given (e.g. lines, while the bar follows bytes read), else
    ``done`` out of ``total``.
    """

    WIDTH = 24

    def __init__(self, label: str, unit: str = "", stream: IO[str] | None = None,
                 enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = enabled
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.last = 0.0
        self.drawn = False

    def update(self, done: int, total: int = 0, *, count: int | None = None,
               label: str | None = None, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        if label is not None:
            self.label = label
        elapsed = max(now - self.start, 1e-9)
        shown = done if count is None else count
        text = _count(shown, self.unit)
        if total > 0 and count is None:
            text += "/" + _count(total, self.unit)
        text += f", {_count(int(shown / elapsed), self.unit)}/s"
        if total > 0:
            frac = min(done / total, 1.0)
            filled = int(frac * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            text = f"[{bar}] {frac * 100:5.1f}% {text}"
            if 0 < done < total:
                text += f", ETA {_duration((total - done) / (done / elapsed))}"
        self.stream.write("\r" + f"{self.label} {text}".lstrip()[:200] + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        """Erase the bar (before other output on stderr, and at the end)."""
        if self.enabled and self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


class BadRowReporter:
    """The ``on_bad`` callback of the batch commands: prints the first
    ``max_errors`` bad rows on stderr (closing the progress bar first), then
    one line saying that the rest are only in the status column.

    ``where(number)`` says where a row is (``"in.fen:12"``, ``"in.parquet:
    row 12"``); ``unit`` names the rows in the closing line.
    """

    def __init__(self, bar: "ProgressBar", where: Any, unit: str, max_errors: int) -> None:
        self.bar = bar
        self.where = where
        self.unit = unit
        self.max_errors = max_errors
        self.reported = 0

    def __call__(self, number: int, text: str, reason: str) -> None:
        self.reported += 1
        if self.reported <= self.max_errors:
            self.bar.close()
            shown = text if len(text) <= 100 else text[:97] + "..."
            err(f"{self.where(number)}: {reason}: {shown!r}")
        elif self.reported == self.max_errors + 1 and self.max_errors > 0:
            self.bar.close()
            err(f"more bad {self.unit} not shown (--max-errors {self.max_errors}; "
                f"see the status column)")


def _count(n: int, unit: str) -> str:
    if unit == "B":
        value = float(n)
        for suffix in ("B", "KiB", "MiB", "GiB"):
            if value < 1024:
                return f"{value:.0f} B" if suffix == "B" else f"{value:.1f} {suffix}"
            value /= 1024
        return f"{value:.1f} TiB"
    return f"{n:,}{(' ' + unit) if unit else ''}"


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def normalize_material(material: str) -> str:
    """The Syzygy file stem for a material: ``KRvKQ`` -> ``KQvKR``
    (:func:`chess.syzygy.normalize_tablename`), or CliError for a name that
    is not a material with one king a side."""
    name = material.strip()
    if name != "KvK" and not chess.syzygy.is_tablename(name, normalized=False, piece_count=None):
        raise CliError(f"not a material like KRPvKR: {material!r}")
    return chess.syzygy.normalize_tablename(name)
