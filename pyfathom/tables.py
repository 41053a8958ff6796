"""Table files on disk: where tables are looked up, path lists, the folders
that hold tables, and checking table files for damage.

The ``pyfathom`` commands, the server and the Dask helpers take their
folders from :func:`table_dirs`: ``--tables`` (or the ``tables`` argument),
else ``$SYZYGY_PATH``, else :func:`default_dir` (the one ``pyfathom
download`` fills).

People keep Syzygy sets as one folder per download (``syzygy/3-4-5-wdl``,
``syzygy/3-4-5-dtz``, ``syzygy/6-wdl``, ...).  :func:`table_folders` finds
those one level below each folder it is given, for any variant's tables;
:func:`pyfathom.open_tablebase`, the ``pyfathom`` command and the server
look for tables that way.  :func:`check_tables` reads every file the way a
probe reads its parts (the C core's ``fathom_check_table``), so a damaged
download is found before an engine meets the bad block.

>>> [p.name for p in table_folders([TABLES])]
['syzygy-chess-1.11.2']
>>> check_tables(sorted(Path(TABLES).glob("KRvK.*")))
[]
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import chess.syzygy

__all__ = ["default_dir", "table_dirs", "is_table_file", "find_table_files",
           "split_path_list", "table_folders", "TableDamage", "check_table", "check_tables",
           "published_checksums", "layout", "residency", "warm", "Part", "Residency",
           "prefix_length", "write_prefix", "prefix_matches"]

from pyfathom._disk.page_cache import Part, Residency, layout, residency, warm  # noqa: E402
from pyfathom._disk.prefix import prefix_length, prefix_matches, write_prefix  # noqa: E402
from pyfathom._signals import leave_signals_to_main_thread  # noqa: E402

StrPath = Union[str, "os.PathLike[str]"]


def split_path_list(value: StrPath) -> list[str]:
    """A directory, or an ``os.pathsep``-separated list of them, as a list.

    ``"/a/syzygy:/b/syzygy"`` (``;`` on Windows) gives both, as Fathom's
    ``tb_init`` and ``$SYZYGY_PATH`` take them; empty entries are dropped.
    A path object, or a string that is itself an existing directory (a
    folder whose name holds the separator), stays one entry.

    >>> split_path_list(os.pathsep.join(["a", "", "b"]))
    ['a', 'b']
    """
    if not isinstance(value, str):
        return [os.fspath(value)]
    if os.pathsep not in value or os.path.isdir(value):
        return [value]
    return [part for part in value.split(os.pathsep) if part]


_SUFFIXES = {
    "chess": ("rtbw", "rtbz"),
    "atomic": ("atbw", "atbz"),
    "suicide": ("stbw", "stbz", "gtbw", "gtbz"),
    "giveaway": ("gtbw", "gtbz", "stbw", "stbz"),
    "antichess": ("gtbw", "gtbz", "stbw", "stbz"),
}
"""The table file suffixes each game's tablebase reads (by python-chess's
``uci_variant``; the antichess family reads the pawnless tables of its
sibling too: see :class:`pyfathom.Tablebase`)."""


def is_table_file(name: str, variant: str = "chess") -> bool:
    """Whether *name* is the file name of a Syzygy table of ``variant``
    (python-chess's ``uci_variant``: ``KRPvKR.rtbw``, ``KQvK.rtbz`` for
    standard chess, ``KBNvK.atbw`` for atomic, ...): python-chess's
    :func:`chess.syzygy.is_tablename` for the stem (with either side first;
    without kings in the antichess family).

    >>> is_table_file("KRPvKR.rtbw"), is_table_file("KvKRP.rtbz"), is_table_file("notes.txt")
    (True, True, False)
    >>> is_table_file("BBvN.gtbw", "antichess"), is_table_file("BBvN.gtbw")
    (True, False)
    """
    stem, _, suffix = name.rpartition(".")
    return suffix in _SUFFIXES.get(variant, ()) and chess.syzygy.is_tablename(
        stem, normalized=False, piece_count=None, one_king=suffix[0] not in "sg")


def default_dir() -> Path:
    """The per-user directory ``pyfathom download`` fills, and where tables
    are looked up when neither ``--tables`` nor ``$SYZYGY_PATH`` says.

    ``$PYFATHOM_HOME/syzygy`` if ``PYFATHOM_HOME`` is set; else on Windows
    ``%LOCALAPPDATA%\\pyfathom\\syzygy``; else
    ``$XDG_DATA_HOME/pyfathom/syzygy``, with ``XDG_DATA_HOME`` defaulting to
    ``~/.local/share``.
    """
    home = os.environ.get("PYFATHOM_HOME")
    if home:
        return Path(home).expanduser() / "syzygy"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "pyfathom" / "syzygy"
    data = os.environ.get("XDG_DATA_HOME") or os.path.join("~", ".local", "share")
    return Path(data).expanduser() / "pyfathom" / "syzygy"


def table_dirs(explicit: Optional[Sequence[str]] = None) -> tuple[list[Path], str]:
    """The directories to load tables from, and where the list came from.

    ``explicit`` (the ``--tables`` values; each may itself be an
    ``os.pathsep``-separated list, split as :func:`split_path_list` splits
    it) wins; else ``$SYZYGY_PATH``; else :func:`default_dir`.  The second
    item is ``"--tables"``, ``"SYZYGY_PATH"`` or ``"default"``.
    """
    if explicit:
        dirs = [p for value in explicit for p in split_path_list(value) if p]
        return [Path(p).expanduser() for p in dirs], "--tables"
    env = [p for p in split_path_list(os.environ.get("SYZYGY_PATH", "")) if p]
    if env:
        return [Path(p).expanduser() for p in env], "SYZYGY_PATH"
    return [default_dir()], "default"


def find_table_files(dirs: Iterable[Path]) -> dict[str, list[Path]]:
    """Table files directly in ``dirs``: ``{"KQvK.rtbw": [path, ...], ...}``.

    Only names of regular Syzygy tables count; unreadable or missing
    directories count as empty.
    """
    found: dict[str, list[Path]] = {}
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            if is_table_file(name) and (Path(d) / name).is_file():
                found.setdefault(name, []).append(Path(d) / name)
    return found


def _holds_tables(folder: Path, variant: str) -> bool:
    try:
        with os.scandir(folder) as entries:
            return any(is_table_file(e.name, variant) and e.is_file() for e in entries)
    except OSError:
        return False


def table_folders(dirs: Iterable[StrPath], variant: str = "chess") -> list[Path]:
    """The folders to load tables from: each given folder that holds table
    files of ``variant`` (python-chess's ``uci_variant``), and each folder
    one level below it that does (sorted by name), in that order, each once.

    The one table lookup: :func:`pyfathom.open_tablebase`, the ``pyfathom``
    commands and the server load their tables from these folders.  Folders
    that do not exist or cannot be read are left out (the caller says so:
    see ``pyfathom``'s messages).  Deeper folders are not searched: a set is
    expected at most one level down, and a tree walk of a big disk is not.
    """
    found: list[Path] = []
    seen: set[str] = set()

    def add(folder: Path) -> None:
        key = os.path.realpath(folder)
        if key not in seen and _holds_tables(folder, variant):
            seen.add(key)
            found.append(folder)

    for d in dirs:
        top = Path(os.fspath(d)).expanduser()
        add(top)
        try:
            with os.scandir(top) as entries:
                subdirs = sorted(e.name for e in entries
                                 if e.is_dir() and not e.name.startswith("."))
        except OSError:
            continue
        for name in subdirs:
            add(top / name)
    return found


@dataclass(frozen=True)
class TableDamage:
    """A table file a probe could not read correctly."""

    path: Path
    reason: str
    """One sentence: what is wrong."""
    offset: int = 0
    """Where in the file the damage was seen (0: the file as a whole)."""

    def __str__(self) -> str:
        where = f" (at byte {self.offset})" if self.offset else ""
        return f"{self.path}: {self.reason}{where}"


def published_checksums() -> dict[str, str]:
    """sha256 of the table files whose published content pyfathom knows:
    the 70 files of the 3-4-piece set (``{"KQvK.rtbw": hex, ...}``)."""
    from pyfathom._disk import default_tables as _default_tables

    return dict(_default_tables.TABLE_SHA256)


class _CheckStopped(Exception):
    """A check given up because :func:`check_tables` raised its stop flag."""


def _sha256(path: Path, stop: Any = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            if stop is not None and stop[0]:
                raise _CheckStopped
            digest.update(chunk)
    return digest.hexdigest()


def check_table(path: StrPath, sha256: Optional[str] = None) -> Optional[TableDamage]:
    """Read one table file as probes would; None if it is fine.

    Opens it as a probe does (size, magic, header, the Huffman headers and
    where the index, size and data regions lie), then goes through every
    index entry, every block size and every code of every block: each must
    point inside the file and decode as a probe would decode it.  The file
    name says the table (``KRPvKR.rtbw``).  With ``sha256`` (the published
    checksum of the file) the content is compared too, which also finds
    what the structure cannot show (a flipped bit that turns one code into
    another of the same length).

    Reads the whole file: about as long as copying it.
    """
    return _check_one(Path(os.fspath(path)), sha256, None)


def _check_one(p: Path, sha256: Optional[str], stop: Any) -> Optional[TableDamage]:
    """:func:`check_table`, raising :class:`_CheckStopped` once ``stop`` (a
    ``lowlevel.new_stop_flag()``, or None) is raised."""
    from pyfathom._bindings import lowlevel as _ll
    from pyfathom._types import Status

    status, offset, what, stopped = _ll.check_table(os.fspath(p), stop)
    if stopped:
        raise _CheckStopped
    if status != Status.OK:
        reason = what or _ll.strerror(status)
        if status == Status.BAD_SIZE:
            size = p.stat().st_size if p.exists() else 0
            reason = ("empty file" if size == 0 else
                      f"{size} bytes: not a whole table (truncated or padded)")
        elif status == Status.IO:
            reason = f"cannot read the file ({what})"
        return TableDamage(p, reason, offset)
    if sha256 is not None:
        actual = _sha256(p, stop)
        if actual != sha256.lower():
            return TableDamage(p, f"sha256 {actual} is not the published {sha256.lower()}")
    return None


def check_tables(paths: Iterable[StrPath], *, checksums: Optional[Mapping[str, str]] = None,
                 threads: int = 2,
                 progress: Optional[Callable[[Path, int, int], None]] = None
                 ) -> list[TableDamage]:
    """:func:`check_table` for many files; the damaged ones, in input order.

    ``checksums`` maps file names (``KQvK.rtbw``) to their published sha256
    (e.g. :func:`published_checksums`, or a ``sha256sum`` file read with
    :func:`pyfathom.download.read_checksums`); files without an entry get
    the structural check only.  ``threads`` files are read at once (the C
    check runs without the GIL).  ``progress(path, done, total)`` is called
    after each file.  An exception raised meanwhile (a Ctrl-C, or one from
    ``progress``) stops the check: the files not yet begun are not read,
    the ones being read are given up within a block (or a MiB of their
    checksum), then it propagates.
    """
    from pyfathom._bindings import lowlevel as _ll

    files = [Path(os.fspath(p)) for p in paths]
    known = {name: digest.lower() for name, digest in (checksums or {}).items()}
    results: list[Optional[TableDamage]] = [None] * len(files)
    stop = _ll.new_stop_flag()
    # The checking threads leave Ctrl-C to the main thread, so that it
    # wakes from its wait at once and not when a file is done.
    pool = ThreadPoolExecutor(max(1, threads), initializer=leave_signals_to_main_thread)
    try:
        futures = [pool.submit(_check_one, f, known.get(f.name), stop) for f in files]
        for done, (i, future) in enumerate(enumerate(futures), start=1):
            results[i] = future.result()
            if progress is not None:
                progress(files[i], done, len(files))
    except BaseException:
        # Without cancelling, the pool's exit would read every file still
        # queued (hours on a 7-piece set) before the interrupt took effect,
        # and without the flag each file being read to its end (minutes for
        # one of tens of gigabytes on a hard disk).
        stop[0] = 1
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return [r for r in results if r is not None]
