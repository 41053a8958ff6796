"""The one internal interface of :class:`pyfathom.Tablebase` beyond its
public methods, for pyfathom's own modules that call the C core directly
(:mod:`pyfathom.annotate` replays games and ranks moves in C, the file
batches of :mod:`pyfathom._files.batch_core` report bad rows by line).

They take a :class:`CoreAccess` from ``Tablebase._core_access()`` and use
nothing else of the tablebase's insides; the tablebase itself uses
:meth:`CoreAccess.probe_error`, the one place that repeats a failed probe
to learn which table or file was involved.
"""

from __future__ import annotations

from typing import NamedTuple

from pyfathom._bindings import lowlevel as _ll
from pyfathom._types import Status


class CoreAccess(NamedTuple):
    """The C instance of a :class:`~pyfathom.Tablebase` as it is now.

    Taken once per run or call: it keeps that instance alive (as a probe
    does), so a :meth:`~pyfathom.Tablebase.close` meanwhile frees it only
    when the access is dropped; tables added after a close go to a new
    instance, which a fresh access sees.
    """

    handle: _ll.Handle
    """For the cffi calls of :mod:`pyfathom._bindings.lowlevel` (``best_move``,
    ``game_replay``, ``probe_detail``, ...)."""
    pinned: _ll.Pinned
    """The same instance for the per-board calls (``board_wdl``,
    ``board_dtz``: see :func:`pyfathom._bindings.lowlevel.pin`)."""
    piece_limit: int
    """Rows with more pieces fail without a probe: what any table holds,
    or for a variant python-chess's limit (one piece more, where captures
    lead into the tables)."""

    def probe_error(self, dtz: bool, context: str, status: int, white: int, black: int,
                    kings: int, queens: int, rooks: int, bishops: int, knights: int,
                    pawns: int, ep: int, turn: bool) -> Exception:
        """The exception for a probe of this position that failed with
        ``status``: the probe (the DTZ one if ``dtz``, else the WDL one) is
        repeated alone to learn the table or file involved.  ``status`` is
        kept when the repeat succeeds (a file readable again).  ``context``
        names the position in the message (its FEN, ``this line``)."""
        full_probe = _ll.probe_dtz_raw if dtz else _ll.probe_wdl_raw
        again, detail = _ll.probe_detail(full_probe, self.handle, white, black, kings, queens,
                                         rooks, bishops, knights, pawns, ep, turn)
        return _ll.error(again if again != Status.OK else status, context, detail)
