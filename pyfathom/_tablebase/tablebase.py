"""The Tablebase class: python-chess's chess.syzygy interface over the C core.

This module holds the class, its C instance and the tables added to it;
the probes are its two base classes, :class:`~pyfathom._tablebase.board_probes.BoardProbes`
(one board at a time, the hot path) and
:class:`~pyfathom._tablebase.batch_probes.BatchProbes` (numpy batches).
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Optional, Sequence, Union

import chess

from pyfathom._bindings import lowlevel as _ll
from pyfathom._tablebase.batch_probes import BatchProbes
from pyfathom._tablebase.board_probes import BoardProbes
from pyfathom._tablebase.core_access import CoreAccess
from pyfathom._errors import UnsupportedVariantError
from pyfathom._types import FAILED, FAILED_DTZ

__all__ = ["Tablebase", "open_tablebase", "StrPath"]

StrPath = Union[str, "os.PathLike[str]"]

_EMPTY = _ll.open_handle()
"""One C instance without tables, shared by every closed :class:`Tablebase`.

A closed tablebase probes this one, so it answers as python-chess's closed
(emptied) tablebase does, through the very same code path: what needs no
table (KvK) is answered, anything else raises :class:`MissingTableError`.
Nothing is ever added to it (:meth:`Tablebase._own_handle` opens a new
instance first), so it stays empty and holds no mapped file."""


if _ll.BATCH_WDL_FAILED != FAILED or _ll.BATCH_DTZ_FAILED != FAILED_DTZ:  # pragma: no cover
    raise ImportError("pyfathom: FAILED sentinels disagree with the C core")


# The variants whose tables the C core reads, by python-chess's uci_variant:
# the C instance's variant.  Antichess is giveaway under another name (the
# same tables and rules; python-chess tells the boards apart).
_VARIANTS = {
    "chess": _ll.VARIANT_STANDARD,
    "atomic": _ll.VARIANT_ATOMIC,
    "suicide": _ll.VARIANT_SUICIDE,
    "giveaway": _ll.VARIANT_GIVEAWAY,
    "antichess": _ll.VARIANT_GIVEAWAY,
}


def _variant_of(VariantBoard: type[chess.Board]) -> int:
    """The one place that decides which ``VariantBoard`` a :class:`Tablebase`
    probes: standard chess (:class:`chess.Board` or a subclass playing it),
    atomic, suicide, giveaway or antichess.  Returns the C instance's variant.

    :raises: :exc:`TypeError` for anything but a :class:`chess.Board`
        class, :class:`~pyfathom.UnsupportedVariantError` (a
        :exc:`ValueError`) for a variant without Syzygy tables, such as
        :class:`chess.variant.CrazyhouseBoard`.
    """
    if not (isinstance(VariantBoard, type) and issubclass(VariantBoard, chess.Board)):
        raise TypeError(f"VariantBoard must be chess.Board or a subclass, not {VariantBoard!r}")
    uci = VariantBoard.uci_variant
    if uci not in _VARIANTS:
        raise UnsupportedVariantError(
            f"no Syzygy tables for the variant {uci} "
            f"({VariantBoard.__module__}.{VariantBoard.__qualname__}); pyfathom probes "
            f"{', '.join(sorted(_VARIANTS))}")
    return _VARIANTS[str(uci)]


class Tablebase(BoardProbes, BatchProbes):
    """A set of Syzygy tables, probed through pyfathom's C core.

    The interface is python-chess's :class:`chess.syzygy.Tablebase`
    (``Tablebase(*, max_fds=128, VariantBoard=chess.Board)``,
    ``add_directory``, ``add_file``, ``probe_wdl``, ``probe_dtz``,
    ``get_wdl``, ``get_dtz``, ``close``, ``with``), with the same answers,
    plus :meth:`probe` (WDL and DTZ in one call), :meth:`probe_root` (every
    legal move ranked) and numpy batch probes.

    ``max_fds`` is accepted and kept (as :attr:`max_fds`) but bounds
    nothing: python-chess keeps a file descriptor open per mapped table and
    closes the least recently used ones past ``max_fds``, while pyfathom
    closes each descriptor right after mapping its file, so it never holds
    any.

    ``VariantBoard`` (as in python-chess) probes the tables of a chess
    variant instead, with that variant's rules:
    :class:`chess.variant.AtomicBoard` (``.atbw``/``.atbz`` files),
    :class:`chess.variant.SuicideBoard` (``.stbw``/``.stbz``, pawnless
    also ``.gtbw``/``.gtbz``), :class:`chess.variant.GiveawayBoard` and
    :class:`chess.variant.AntichessBoard` (``.gtbw``/``.gtbz``, pawnless
    also ``.stbw``/``.stbz``).  Such a tablebase takes boards of its
    variant only (another board raises
    :class:`~pyfathom.UnsupportedPositionError`, a :exc:`KeyError`); other
    variants raise :class:`~pyfathom.UnsupportedVariantError`.

    Directories and files are only listed when added, and stored as
    absolute paths (a later :func:`os.chdir` does not lose them); a table
    file is memory-mapped the first time a probe needs it.

    **Thread safety:** every probe method may be called from any number of
    threads at once, also with one shared board object (boards are only
    read).  :meth:`add_directory`, :meth:`add_file` and :meth:`close` must
    not overlap with probes.  The per-board probes (:meth:`probe_wdl`,
    :meth:`probe_dtz`, :meth:`probe`) keep the GIL for their half
    microsecond of C; the batch probes release it, and spread their rows
    over threads themselves.

    >>> tb = pyfathom.Tablebase()
    >>> tb.add_directory(TABLES)
    70
    >>> tb.largest
    4
    >>> tb.close()
    """

    __slots__ = ("_h", "_pinned", "_buffers", "_read_ahead", "max_fds", "variant", "__weakref__")

    _h: _ll.Handle
    """The C instance (for the cffi calls); the shared empty one
    (:data:`_EMPTY`) once closed."""

    _pinned: _ll.Pinned
    """The same instance for the per-board probes (see
    :func:`pyfathom._bindings.lowlevel.pin`)."""

    _buffers: list[object]
    """The table bytes given to :meth:`add_table_bytes`, which the C core
    reads in place: kept as long as this object (not cleared by
    :meth:`close`, so a probe still running on the instance can read
    them)."""

    max_fds: Optional[int]
    """As given; bounds nothing (pyfathom keeps no descriptor open)."""

    variant: type[chess.Board]
    """The ``VariantBoard`` (python-chess's attribute of that name)."""

    def __init__(self, *, max_fds: Optional[int] = 128,
                 VariantBoard: type[chess.Board] = chess.Board) -> None:
        c_variant = _variant_of(VariantBoard)
        self.max_fds = max_fds
        self.variant = VariantBoard
        self._h = _ll.open_handle(c_variant)
        self._pinned = _ll.pin(self._h, VariantBoard)
        self._buffers = []
        self._read_ahead = "auto"

    @property
    def read_ahead(self) -> str:
        """How batch probes, root probes and ``pyfathom annotate``'s game
        replays read tables that are not in memory (see
        :doc:`/tables-on-disk`): ``"auto"`` (the default) asks the system
        for the pages the next rows of a batch will read while the batch
        takes page faults, and for the reads of a 6-7-piece root's moves
        or of a game's probed positions together while those probes take
        them; ``"always"`` always, ``"off"`` never.  The answers are the
        same in every mode."""
        return self._read_ahead

    @read_ahead.setter
    def read_ahead(self, mode: str) -> None:
        _ll.set_read_ahead(self._own_handle(), mode)
        self._read_ahead = mode

    # ---- lifetime ----------------------------------------------------------

    def _handle(self) -> _ll.Handle:
        """The C instance (the empty shared one once closed)."""
        return self._h

    def _core_access(self) -> CoreAccess:
        """The one internal interface for pyfathom's own modules (see
        :mod:`pyfathom._tablebase.core_access`): the C instance as it is now."""
        limit = _ll.MAX_PIECES if self.variant.uci_variant == "chess" else _ll.MAX_PIECES + 1
        return CoreAccess(self._h, self._pinned, limit)

    def _own_handle(self) -> _ll.Handle:
        """The instance to add tables to: a new one after :meth:`close`, of
        the variant :attr:`variant` names (the one place that says which)."""
        if self._h is _EMPTY:
            h = _ll.open_handle(_variant_of(self.variant))
            self._pinned = _ll.pin(h, self.variant)
            _ll.set_read_ahead(h, self._read_ahead)
            self._h = h
        return self._h

    def add_directory(self, directory: StrPath, *, load_wdl: bool = True,
                      load_dtz: bool = True) -> int:
        """Register the tables (``*.rtbw``, ``*.rtbz``) found in a directory.

        Nothing is opened or mapped yet.  A table already registered is
        replaced by the one found here.  The directory is stored as an
        absolute path.  Returns the number of table files found.

        :raises: :exc:`FileNotFoundError` / :exc:`NotADirectoryError` if
            ``directory`` is not a directory.
        """
        path = os.path.abspath(os.fspath(directory))
        if not os.path.isdir(path):
            if os.path.exists(path):
                raise NotADirectoryError(20, "not a directory", path)
            raise FileNotFoundError(2, "no such tablebase directory", path)
        return _ll.add_directory(self._own_handle(), path, load_wdl, load_dtz)

    def add_prefix_directory(self, directory: StrPath) -> int:
        """Read the heads of tables from prefix files in ``directory``.

        Each file ``NAME.prefix`` there (``KRvK.rtbw.prefix``, as
        lila-tablebase's ``--hot-prefix`` folders hold) is a copy of the
        first bytes of the table file called ``NAME``; when that table is
        mapped, its bytes below the prefix's size come from the prefix
        file (see :doc:`/tables-on-disk`).  Call it before the tables are
        first probed.  Returns the number of prefix files found.
        """
        path = os.path.abspath(os.fspath(directory))
        if not os.path.isdir(path):
            if os.path.exists(path):
                raise NotADirectoryError(20, "not a directory", path)
            raise FileNotFoundError(2, "no such prefix directory", path)
        return _ll.add_prefix_directory(self._own_handle(), path)

    def add_file(self, path: StrPath, *, load_wdl: bool = True, load_dtz: bool = True) -> int:
        """Register one table file, as :meth:`chess.syzygy.Tablebase.add_file`.

        Returns 1 if ``path`` is a regular file named as a table
        (``KRvK.rtbw`` with ``load_wdl``, ``KRvK.rtbz`` with ``load_dtz``;
        the name must be the normalised one, as python-chess requires), 0
        otherwise, also when it does not exist.  The file is not opened
        yet; its path is stored as an absolute path.  It replaces a file of
        the same table registered before.

        >>> tb = pyfathom.Tablebase()
        >>> tb.add_file(os.path.join(TABLES, "KRvK.rtbw")), tb.add_file("no/KvK.rtbw")
        (1, 0)
        >>> tb.probe_wdl(chess.Board("8/8/8/8/8/8/2Rk4/1K6 b - - 0 1"))
        WDL.LOSS
        >>> tb.close()
        """
        full = os.path.abspath(os.fspath(path))
        if not os.path.isfile(full):
            return 0
        return _ll.add_file(self._own_handle(), full, load_wdl, load_dtz)

    def add_table_bytes(self, name: str, data: "bytes | bytearray | memoryview") -> None:
        """Register one table from bytes already in memory, instead of a file:
        read from an archive, a database or the network.

        ``name`` is the file name the bytes would have (``"KQvK.rtbw"``,
        ``"KRPvKR.rtbz"``).  The bytes are not copied: the C core reads them
        in place, and this tablebase keeps a reference to them; do not
        change them afterwards.  They are checked as a mapped file is (size,
        magic, every offset) by the first probe that needs them, which
        raises :class:`~pyfathom.CorruptTableError` naming
        ``memory:<name>`` for damaged bytes.  A table already registered
        under that name is replaced.

        >>> with pyfathom.Tablebase() as tb:
        ...     tb.add_table_bytes("KQvK.rtbw", open(f"{TABLES}/KQvK.rtbw", "rb").read())
        ...     tb.probe_wdl(chess.Board("8/8/8/8/8/2k5/8/KQ6 w - - 0 1"))
        WDL.WIN

        :raises ValueError: ``name`` is not the name of a table file.
        """
        self._buffers.append(_ll.add_table_memory(self._own_handle(), name, data))

    @property
    def largest(self) -> int:
        """Pieces in the largest WDL table registered (Fathom's
        ``TB_LARGEST``); 0 when there is none.  Positions with more pieces
        are probed too, as python-chess probes them (see :meth:`probe_wdl`)."""
        return _ll.largest(self._h)

    @property
    def mapped_count(self) -> int:
        """Table files memory-mapped so far (they are mapped on first use)."""
        return _ll.mapped_count(self._h)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`, until tables are added again."""
        return self._h is _EMPTY

    def close(self) -> None:
        """Unmap every table and free the C instance.

        As python-chess's ``close()``, the object stays usable as an empty
        tablebase: probes that need no table (KvK) answer, the others raise
        :class:`~pyfathom.MissingTableError` (so ``get_*`` return their
        default), and :meth:`add_directory` / :meth:`add_file` fill it
        again.  Closing twice is fine.  Closing while other threads are
        inside a probe is safe: each probe holds a reference to the C
        instance for the length of its call, and the instance is freed when
        the last such reference goes (at once when no probe is running;
        under CPython's reference counting this is deterministic).
        """
        # _h first: a probe that sees the empty _pinned then sees closed.
        self._h = _EMPTY
        self._pinned = _ll.pin(_EMPTY, self.variant)

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, exc_type: Optional[type[BaseException]],
                 exc_value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._h is _EMPTY:
            return "<pyfathom.Tablebase (closed)>"
        return f"<pyfathom.Tablebase largest={self.largest}>"

def open_tablebase(directory: Union[StrPath, Sequence[StrPath]], *, load_wdl: bool = True,
                   load_dtz: bool = True, max_fds: Optional[int] = 128,
                   VariantBoard: type[chess.Board] = chess.Board) -> Tablebase:
    """Open the Syzygy tables of a directory: :func:`chess.syzygy.open_tablebase`.

    ``Tablebase(max_fds=max_fds, VariantBoard=VariantBoard)``, then
    :meth:`~Tablebase.add_directory`, as python-chess.  As an extra,
    ``directory`` may also be a list of directories, or a string of
    directories separated by :data:`os.pathsep` (as ``$SYZYGY_PATH``) that
    is not itself a directory; empty entries are skipped; and the folders
    one level below each directory that hold tables of the game are loaded
    too (``syzygy/3-4-5-wdl``, ``syzygy/6-dtz``, ...: see
    :func:`pyfathom.tables.table_folders`), as the ``pyfathom`` command
    loads them.  Only the directory listing happens now; tables are mapped
    when probed.  See
    :class:`Tablebase` for ``max_fds`` (accepted, bounds nothing) and
    ``VariantBoard`` (standard chess, atomic, suicide, giveaway, antichess).

    Probing needs the table of the position's material and of every material
    its captures and promotions lead to.

    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     tb.largest
    4

    ``VariantBoard``: the tables of a chess variant, as in python-chess
    (see :class:`Tablebase`):

    >>> import chess.variant
    >>> with pyfathom.open_tablebase(TABLES, VariantBoard=chess.variant.AtomicBoard) as tb:
    ...     tb.largest  # TABLES holds standard tables only
    0

    :raises: :exc:`FileNotFoundError` if a directory does not exist,
        :class:`~pyfathom.UnsupportedVariantError` for a ``VariantBoard``
        of a chess variant without Syzygy tables.
    """
    from pyfathom.tables import split_path_list, table_folders

    if isinstance(directory, (str, os.PathLike)):
        directories: Sequence[StrPath] = split_path_list(directory)  # "a:b" as tb_init
    elif isinstance(directory, bytes):
        directories = [directory]
    else:
        directories = directory
    tb = Tablebase(max_fds=max_fds, VariantBoard=VariantBoard)
    try:
        for path in directories:
            tb.add_directory(path, load_wdl=load_wdl, load_dtz=load_dtz)  # it must exist
            top = os.path.realpath(os.fsdecode(path))
            for folder in table_folders([os.fsdecode(path)], str(VariantBoard.uci_variant)):
                if os.path.realpath(folder) != top:  # a set one level down
                    tb.add_directory(folder, load_wdl=load_wdl, load_dtz=load_dtz)
    except BaseException:
        tb.close()
        raise
    return tb
