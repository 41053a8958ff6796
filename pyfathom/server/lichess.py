"""The documents of lichess's tablebase API, computed from a pyfathom Tablebase.

No web framework here: :func:`parse_fen` turns a query's FEN into a board
(or raises :class:`BadRequest`), :func:`probe_document` builds the answer of
``GET /standard``, :func:`probe_documents` the same answers for many boards
from one batch probe (``POST /standard/batch``), and
:func:`mainline_document` the answer of ``GET /standard/mainline``, as plain
dicts ready for JSON or CBOR.

The rules follow lichess's published API description and the behaviour of
its server (lila-tablebase):

- ``category`` is the result for the side to move, under the 50-move rule
  counted from the FEN's halfmove clock: ``win`` / ``loss`` when the zeroing
  move (capture or pawn move) or mate comes within the clock's remaining
  plies; ``cursed-win`` / ``blessed-loss`` when the DTZ plus the clock passes
  100; ``syzygy-win`` / ``syzygy-loss`` when the table stores the DTZ rounded
  and the sum lands exactly on 100, so the rounding decides (the value may be
  one ply short); ``unknown`` when the tables cannot answer (castling rights,
  more pieces than the tables, a missing table).  ``maybe-win`` /
  ``maybe-loss`` belong to lichess's DTC tables, which pyfathom does not read,
  so they never appear.  A halfmove clock already at 100 before the last move
  makes every decisive result a cursed win or a blessed loss.
- Each move carries the fields of the position after it, from the point of
  view of the side to move there (a winning move has category ``loss``),
  judged with the clock the move leaves, plus ``conversion`` (a capture or
  a promotion).  Moves are sorted best first as lila-tablebase sorts them
  (:func:`_move_sort_key`): by category (``loss``, ``unknown``,
  ``syzygy-loss``, ``maybe-loss``, ``blessed-loss``, ``draw``,
  ``cursed-win``, ``maybe-win``, ``syzygy-win``, ``win``: an unknown move
  ranks just above a losing one), then mates and variant ends first,
  stalemates and dead positions next, then conversions and then other
  zeroing moves first when winning or drawing and last when losing, then
  by DTZ (quickest win, longest resistance), then by the captured and
  promoted piece (queen first).  Ties keep python-chess's generation order.
- The position's own ``category`` is the opposite of its best move's (so
  a won position whose best move is a sure win is ``win`` even when the
  rounding alone would leave it ambiguous); without moves, it is judged
  from its own DTZ.
- ``dtz`` is the stored DTZ50'' (python-chess's number, possibly rounded),
  ``precise_dtz`` the same number where the table stores it exactly, else
  null; both null where the tables cannot answer.  The exactness is
  lila-tablebase's (shakmaty-syzygy's,
  :meth:`pyfathom.Tablebase.probe_dtz_as_stored`), which differs from
  :attr:`pyfathom.Probe.dtz_precise` in two cases: a DTZ of 1 the table
  stores rounded stays rounded even where a move mates, and a DTZ found
  from the moves (the table stores the other side to move) takes the flag
  of the first of the moves tied for it in shakmaty-syzygy's move order
  (``8/8/5q2/8/5k1K/4p3/8/8 w``: -2, exact for lila, rounded for pyfathom,
  which wants every tied move exact).  With ``exact_mates=True`` the
  documents keep pyfathom's flag.  ``dtm``, ``dtc`` and
  ``dtw`` (lichess's DTM, DTC and antichess DTW tables, which pyfathom
  does not read) are always null.
- Atomic and antichess boards (:data:`VARIANTS`) follow python-chess's
  rules of that variant for moves, SAN and the game's end;
  ``variant_win`` / ``variant_loss`` say the variant ended the game (an
  exploded king, a side without pieces), and rank before the probe.

>>> import pyfathom
>>> with pyfathom.open_tablebase(TABLES) as tb:
...     doc = probe_document(tb, parse_fen("4k3/8/4K3/8/8/8/8/7R_w_-_-_0_1"))
>>> doc["category"], doc["dtz"], doc["moves"][0]["san"], doc["moves"][0]["category"]
('win', 1, 'Rh8#', 'loss')
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor, Future
from typing import Any, Optional

import chess
import chess.variant

import pyfathom
from pyfathom.fen import FenError, parse_board
from pyfathom._types import ClockResult
from pyfathom.server.moves import Child, children as _children

__all__ = [
    "CATEGORIES",
    "MAX_FEN_LENGTH",
    "MAX_CLOCK",
    "VARIANTS",
    "BadRequest",
    "NotInTables",
    "category",
    "negate",
    "parse_fen",
    "probe_document",
    "probe_documents",
    "mainline_document",
]

CATEGORIES = ("loss", "unknown", "syzygy-loss", "maybe-loss", "blessed-loss", "draw",
              "cursed-win", "maybe-win", "syzygy-win", "win")
"""Every category, in lichess's sort order for moves (the category of the
position a move leads to, best move first)."""

_RANK = {name: i for i, name in enumerate(CATEGORIES)}
_OPPOSITE = {
    "loss": "win", "win": "loss", "unknown": "unknown",
    "syzygy-loss": "syzygy-win", "syzygy-win": "syzygy-loss",
    "maybe-loss": "maybe-win", "maybe-win": "maybe-loss",
    "blessed-loss": "cursed-win", "cursed-win": "blessed-loss", "draw": "draw",
}
# When the position itself is known to be (prev), its best moves judged
# ambiguous by rounding alone are in fact (correct): lichess resolves them so.
_RESOLVE = (
    ("win", ("syzygy-loss", "maybe-loss"), "loss"),
    ("cursed-win", ("syzygy-loss", "maybe-loss"), "blessed-loss"),
    ("blessed-loss", ("syzygy-win", "maybe-win"), "cursed-win"),
    ("loss", ("syzygy-win", "maybe-win"), "win"),
)

MAX_FEN_LENGTH = 256
"""Longest FEN accepted (a FEN of a legal position is under 100 characters)."""

MAX_CLOCK = 2**32 - 1
"""Largest halfmove clock and move number accepted: lila-tablebase's FEN
parser holds them in 32 bits and refuses larger ones."""

VARIANTS: dict[str, type[chess.Board]] = {
    "standard": chess.Board,
    "atomic": chess.variant.AtomicBoard,
    "antichess": chess.variant.AntichessBoard,
}
"""The variants lichess serves, by the first segment of their endpoints,
and python-chess's board of each."""

# Flags python-chess reports that lichess tolerates: it drops castling rights
# without their king and rook and an en-passant square no double push made,
# and accepts checks that no last move could have given.
_TOLERATED = (chess.STATUS_BAD_CASTLING_RIGHTS | chess.STATUS_INVALID_EP_SQUARE
              | chess.STATUS_IMPOSSIBLE_CHECK | chess.STATUS_TOO_MANY_CHECKERS)


class BadRequest(ValueError):
    """The request is malformed (a 400 answer); the message says why."""


class NotInTables(LookupError):
    """The position is not one the tables answer (a 404 for the mainline)."""


def negate(name: str) -> str:
    """The same result seen from the other side: ``win`` <-> ``loss``...

    >>> negate("cursed-win"), negate("draw")
    ('blessed-loss', 'draw')
    """
    return _OPPOSITE[name]


def parse_fen(text: str, variant: str = "standard") -> chess.Board:
    """The board of a query's FEN (underscores stand for spaces), of the
    python-chess board class of ``variant`` (a key of :data:`VARIANTS`).

    Missing trailing fields take their usual defaults (white to move, no
    castling, no en passant, clocks 0 and 1).  As lichess does, castling
    rights without their king and rook and an impossible en-passant square
    are dropped instead of refused.

    >>> parse_fen("8/8/8/8/8/8/2Rk4/1K6_b").fen()
    '8/8/8/8/8/8/2Rk4/1K6 b - - 0 1'
    >>> parse_fen("8/8/8/8/8/8/2Rk4/1K6 w - - 0 1")
    Traceback (most recent call last):
    ...
    pyfathom.server.lichess.BadRequest: illegal position (opposite check): 8/8/8/8/8/8/2Rk4/1K6 w - - 0 1

    A halfmove clock or move number past :data:`MAX_CLOCK` is refused (as
    lichess refuses numbers its parser cannot hold).

    :raises: :class:`BadRequest` for an empty, over-long or malformed FEN,
        a clock past :data:`MAX_CLOCK`, or an illegal position.
    """
    fen = " ".join(text.replace("_", " ").split())
    if not fen:
        raise BadRequest("empty fen")
    if len(fen) > MAX_FEN_LENGTH:
        raise BadRequest(f"fen too long ({len(fen)} characters, at most {MAX_FEN_LENGTH})")
    if not fen.isprintable() or not fen.isascii():
        raise BadRequest(f"fen has characters a FEN cannot contain: {fen!r}")
    try:
        board = parse_board(text, VARIANTS[variant])  # the one position grammar (pyfathom.fen)
    except FenError as e:
        raise BadRequest(str(e)) from None
    if board.halfmove_clock > MAX_CLOCK or board.fullmove_number > MAX_CLOCK:
        raise BadRequest(f"invalid fen {text!r}: halfmove clock and move number must be at most "
                         f"{MAX_CLOCK}")
    if board.castling_rights:
        board.castling_rights = board.clean_castling_rights()
    status = board.status()
    if status & chess.STATUS_INVALID_EP_SQUARE:
        board.ep_square = None
        status = board.status()
    status &= ~_TOLERATED
    if status:
        reasons = ", ".join(flag.name.lower().replace("_", " ") for flag in chess.Status
                            if flag and flag.name and status & flag)
        raise BadRequest(f"illegal position ({reasons}): {fen}")
    return board


def category(dtz: Optional[int], precise: bool, *, checkmate: bool, drawn: bool,
             halfmoves: int, halfmoves_before: int, variant_win: bool = False,
             variant_loss: bool = False) -> str:
    """The lichess category of a position for its side to move.

    ``dtz`` and ``precise``: the position's probe (``dtz`` None when the
    tables cannot answer); ``drawn``: stalemate or insufficient material;
    ``halfmoves``: its halfmove clock; ``halfmoves_before``: the clock of the
    position before (for a move: the root's clock; for the root itself: its
    clock minus one); ``variant_win`` / ``variant_loss``: the variant's own
    end (atomic's exploded king, antichess's empty side), which outranks a
    draw and the probe, as in lichess.

    >>> category(60, True, checkmate=False, drawn=False, halfmoves=40, halfmoves_before=39)
    'win'
    >>> category(60, True, checkmate=False, drawn=False, halfmoves=41, halfmoves_before=40)
    'cursed-win'
    >>> category(60, False, checkmate=False, drawn=False, halfmoves=40, halfmoves_before=39)
    'syzygy-win'
    >>> category(-60, False, checkmate=False, drawn=False, halfmoves=39, halfmoves_before=38)
    'loss'
    """
    if variant_win:
        return "win" if halfmoves_before < 100 else "cursed-win"
    if not variant_loss and (drawn or dtz == 0):
        return "draw"
    if checkmate or variant_loss:
        return "loss" if halfmoves_before < 100 else "blessed-loss"
    if dtz is None:
        return "unknown"
    if halfmoves_before >= 100:
        return "blessed-loss" if dtz < 0 else "cursed-win"
    return _CLOCK_CATEGORY[ClockResult.of(dtz, precise, halfmoves)]


_CLOCK_CATEGORY = {
    ClockResult.LOSS: "loss",
    ClockResult.MAYBE_LOSS: "syzygy-loss",  # the table's rounding decides
    ClockResult.BLESSED_LOSS: "blessed-loss",
    ClockResult.DRAW: "draw",
    ClockResult.CURSED_WIN: "cursed-win",
    ClockResult.MAYBE_WIN: "syzygy-win",
    ClockResult.WIN: "win",
}
"""lila's category of each result under the 50-move rule."""


_ProbeResult = tuple[Optional[int], bool]
"""(dtz, precise) of one position, (None, False) where the tables cannot
answer it."""


def _row(board: chess.Board) -> tuple[int, ...]:
    """``board``'s bitboards in the order of a C probe's arguments."""
    occ = board.occupied_co
    return (occ[1], occ[0], board.kings, board.queens, board.rooks, board.bishops,
            board.knights, board.pawns, board.ep_square or 0, board.turn)


def _probe(tb: pyfathom.Tablebase, board: chess.Board, exact_mates: bool = False
           ) -> _ProbeResult:
    """(dtz, precise) of ``board``, precise as lichess says it
    (:meth:`pyfathom.Tablebase.probe_dtz_as_stored`) or, with
    ``exact_mates``, as pyfathom does (:attr:`pyfathom.Probe.dtz_precise`);
    (None, False) where the tables cannot answer it (castling rights, too
    many pieces, a missing table; or a position the core refuses, such as
    an impossible check).  A damaged table still raises
    :class:`~pyfathom.CorruptTableError`."""
    try:
        if exact_mates:
            probe = tb.probe(board)
            return probe.dtz, probe.dtz_precise
        return tb.probe_dtz_as_stored(board)
    except (KeyError, pyfathom.InvalidPositionError):
        return None, False


def _info(dtz: Optional[int], precise: bool, checkmate: bool, stalemate: bool,
          insufficient: bool, variant_win: bool = False,
          variant_loss: bool = False) -> dict[str, Any]:
    return {
        "dtz": dtz,
        "precise_dtz": dtz if precise else None,
        "dtm": None,
        "dtc": None,
        "dtw": None,
        "checkmate": checkmate,
        "stalemate": stalemate,
        "variant_win": variant_win,
        "variant_loss": variant_loss,
        "insufficient_material": insufficient,
    }


_POSITIVE = frozenset(("cursed-win", "maybe-win", "syzygy-win", "win"))


def _move_sort_key(child: Child, cat: str, dtz: Optional[int]) -> tuple[Any, ...]:
    """lila-tablebase's order of moves, best first (``cat``, ``dtz``: the
    position after the move, for the side to move there): by category;
    mates and variant ends first; stalemates and dead positions next; when
    the mover wins or draws, conversions (captures, promotions) first, then
    other zeroing moves; when losing, both last; then the quickest win or
    the longest resistance; then the piece taken and the piece promoted to,
    queen first; ties keep python-chess's generation order."""
    mover_loses = cat in _POSITIVE
    return (
        _RANK[cat],
        (not child.checkmate, not child.variant_loss, child.variant_win),
        (not child.stalemate, not child.insufficient),
        child.conversion if mover_loses else not child.conversion,
        child.zeroing if mover_loses else not child.zeroing,
        (0, 0) if dtz is None else (1, -dtz),
        -(child.captured or 0),
        -(child.move.promotion or 0),
        child.order,
    )


def _document(board: chess.Board, children: list[Child], child_probes: Sequence[_ProbeResult],
              own_probe: _ProbeResult) -> dict[str, Any]:
    """The ``GET /standard`` document of ``board`` from its moves' facts
    (:func:`_children`), the probe of the position after each move (same
    order) and its own probe, wherever those probes came from."""
    halfmoves = board.halfmove_clock
    rows: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for child, (dtz, precise) in zip(children, child_probes):
        mate, stalemate, insufficient = child.checkmate, child.stalemate, child.insufficient
        cat = category(dtz, precise, checkmate=mate, drawn=stalemate or insufficient,
                       halfmoves=child.clock, halfmoves_before=halfmoves,
                       variant_win=child.variant_win, variant_loss=child.variant_loss)
        entry = {"uci": child.move.uci(), "san": child.san, "zeroing": child.zeroing,
                 "conversion": child.conversion}
        entry.update(_info(dtz, precise, mate, stalemate, insufficient,
                           child.variant_win, child.variant_loss))
        entry["category"] = cat
        rows.append((_move_sort_key(child, cat, dtz), entry))
    rows.sort(key=lambda row: row[0])
    moves = [entry for _, entry in rows]

    if type(board) is chess.Board:  # the moves are already known: no second generation
        check = board.is_check()
        mate, stalemate = check and not children, not check and not children
        variant_win = variant_loss = False
    else:
        mate, stalemate = board.is_checkmate(), board.is_stalemate()
        variant_win, variant_loss = board.is_variant_win(), board.is_variant_loss()
    insufficient = board.is_insufficient_material()
    dtz, precise = own_probe
    own = category(dtz, precise, checkmate=mate, drawn=stalemate or insufficient,
                   halfmoves=halfmoves, halfmoves_before=max(halfmoves - 1, 0),
                   variant_win=variant_win, variant_loss=variant_loss)
    for known, ambiguous, resolved in _RESOLVE:
        if own == known:
            for entry in moves:
                if entry["category"] not in ambiguous:
                    break
                entry["category"] = resolved
    document = _info(dtz, precise, mate, stalemate, insufficient, variant_win, variant_loss)
    document["category"] = negate(moves[0]["category"]) if moves else own
    document["moves"] = moves
    return document


READ_AHEAD_PIECES = 6
"""Positions with this many pieces or more have their moves' reads asked
for together before their probes (:meth:`pyfathom.Tablebase.read_ahead_moves`):
the 6-7-piece tables are the ones on disk; on the 3-5-piece ones, in
memory, asking would only cost time."""


def probe_document(tb: pyfathom.Tablebase, board: chess.Board, *,
                   exact_mates: bool = False, spread: Optional[Executor] = None
                   ) -> dict[str, Any]:
    """The answer of lichess's ``GET /standard`` for ``board``, probing
    the position after each legal move and the position itself
    (:meth:`pyfathom.Tablebase.probe_dtz_as_stored`); ``exact_mates``:
    pyfathom's precise flags, not lila's (:func:`_probe`).

    ``spread``: None, one probe after another; an executor (a thread
    pool), every one of those probes handed to it as soon as its move is
    generated, so that they run together: on tables not yet in the page
    cache each probe waits for its reads from disk, and together the
    request waits about as long as its slowest probe instead of the sum
    of them (the C probes release the GIL).  The same probes either way,
    so the same document.

    Either way, a position of ``READ_AHEAD_PIECES`` (6) pieces or more first has
    every one of those probes' reads asked for at once
    (:meth:`pyfathom.Tablebase.read_ahead_moves`, following the
    tablebase's :attr:`~pyfathom.Tablebase.read_ahead`).

    ``board`` is not modified (moves are pushed and popped).

    :raises: :class:`~pyfathom.CorruptTableError` for a damaged table.
    """
    if chess.popcount(board.occupied) >= READ_AHEAD_PIECES:
        tb.read_ahead_moves(board)
    if spread is None:
        child_probes: list[_ProbeResult] = []
        children = _children(board, lambda child: child_probes.append(
            _probe(tb, child, exact_mates)))
        return _document(board, children, child_probes, _probe(tb, board, exact_mates))
    pending: list[Future[_ProbeResult]] = []
    children = _children(board, lambda child: pending.append(
        spread.submit(_probe, tb, child.copy(stack=False), exact_mates)))
    pending.append(spread.submit(_probe, tb, board.copy(stack=False), exact_mates))
    # Read in the order of the one-by-one path, so that a damaged file
    # raises the error of the same probe (the one its message names).
    probes = [probe.result() for probe in pending]
    return _document(board, children, probes[:-1], probes[-1])


# Batch rows that failed because the tables cannot answer the position (as
# _probe's KeyError and InvalidPositionError); any other failure is a
# damaged or unreadable file.
_UNANSWERABLE = frozenset((pyfathom.Status.MISSING_TABLE, pyfathom.Status.CASTLING,
                           pyfathom.Status.TOO_MANY_PIECES, pyfathom.Status.INVALID_POSITION))
_MASKLESS_ROW = (0,) * 10


def probe_documents(tb: pyfathom.Tablebase, boards: Sequence[chess.Board], *,
                    threads: Optional[int] = None, exact_mates: bool = False
                    ) -> list[Optional[dict[str, Any]]]:
    """:func:`probe_document` for many boards, with one batch probe.

    Every board and every position after one of its legal moves become
    rows of one set of bitboard arrays, probed in one
    :meth:`~pyfathom.Tablebase.probe_dtz_bitboards` call (DTZ, precise flag
    and status of each row; the C loop runs without the GIL on ``threads``
    threads, None: every core); the documents are then assembled by the
    same code as :func:`probe_document`'s, so each equals it.
    ``exact_mates``: pyfathom's precise flags
    (:meth:`~pyfathom.Tablebase.probe_dtz_bitboards`'s ``precise``), as
    :func:`probe_document`'s.

    Returns one document per board, in order; None for a board whose
    probes met a damaged or unreadable table file: :func:`probe_document`
    of that board raises the error naming the file.

    >>> boards = [parse_fen("4k3/8/4K3/8/8/8/8/7R_w"), parse_fen("4k3/8/8/8/8/8/8/R3K2R_w_KQ")]
    >>> with pyfathom.open_tablebase(TABLES) as tb:
    ...     docs = probe_documents(tb, boards)
    ...     docs == [probe_document(tb, board) for board in boards]
    True
    >>> [(d["category"], d["dtz"], d["moves"][0]["san"]) for d in docs]
    [('win', 1, 'Rh8#'), ('win', None, 'Kf2')]

    (With castling rights the position itself is unknown to the tables,
    but the king moves that drop them lead into KRRvK.)
    """
    import numpy as np

    flat: list[int] = []
    castling_rows: list[int] = []

    def collect(position: chess.Board) -> None:
        # The tables hold no castling rights: such a row is not probed.
        if position.castling_rights:
            castling_rows.append(len(flat) // 10)
            flat.extend(_MASKLESS_ROW)
            return
        flat.extend(_row(position))

    plans = []
    for board in boards:
        first_row = len(flat) // 10
        children = _children(board, collect)
        collect(board)  # its own row comes after its moves'
        plans.append((board, children, first_row))
    rows = len(flat) // 10
    if not rows:
        return []
    columns = np.ascontiguousarray(np.array(flat, dtype=np.uint64).reshape(rows, 10).T)
    status = np.empty(rows, dtype=np.uint8)
    precise = np.empty(rows, dtype=np.uint8)
    white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn = columns
    probe = tb.probe_dtz_bitboards if exact_mates else tb.probe_dtz_bitboards_as_stored
    dtz = probe(white, black, kings, queens, rooks, bishops, knights, pawns, ep, turn,
                threads=threads, status=status, precise=precise)
    status[castling_rows] = pyfathom.Status.CASTLING
    answered = status == pyfathom.Status.OK
    unknown: _ProbeResult = (None, False)
    results = [(value, exact == 1) if ok else unknown
               for value, exact, ok in zip(dtz.tolist(), precise.tolist(), answered.tolist())]
    # Rows that met a damaged or unreadable file (none, normally).
    damaged = set(np.flatnonzero(
        ~answered & ~np.isin(status, list(_UNANSWERABLE))).tolist())
    documents: list[Optional[dict[str, Any]]] = []
    for board, children, first_row in plans:
        own_row = first_row + len(children)
        if damaged and not damaged.isdisjoint(range(first_row, own_row + 1)):
            documents.append(None)
        else:
            documents.append(_document(board, children, results[first_row:own_row],
                                       results[own_row]))
    return documents


def mainline_document(tb: pyfathom.Tablebase, board: chess.Board, *,
                      exact_mates: bool = False) -> dict[str, Any]:
    """The answer of lichess's ``GET /standard/mainline`` for ``board``.

    The line plays :meth:`pyfathom.Tablebase.probe_root`'s best move for
    both sides (which keeps a win within the 50-move rule) until mate, or
    until the halfmove clock reaches 100, where the draw is claimed; a drawn
    position has an empty line.  Each step gives the DTZ of the position
    after the move, for the side to move there.  ``winner`` is ``"w"`` or
    ``"b"`` when the line ends in mate (or the variant's own win), else null.
    ``exact_mates``: as :func:`probe_document`.

    :raises: :class:`NotInTables` when the tables cannot answer the
        position; :class:`~pyfathom.CorruptTableError` for a damaged table.
    """
    dtz, precise = _probe(tb, board, exact_mates)
    if dtz is None:
        raise NotInTables(f"not a tablebase position, or a table is missing: {board.fen()}")
    line = []
    position = board.copy(stack=False)
    if dtz != 0:
        while position.halfmove_clock < 100:
            try:
                best = tb.probe_root(position).best_move
            except (KeyError, pyfathom.InvalidPositionError) as e:
                # A move into a table that is missing (or has its WDL file
                # only): lila answers such a root with a 404 as well.
                raise NotInTables(f"a table is missing for a move of {position.fen()}: {e}") \
                    from None
            if best is None:
                break
            san = position.san(best)
            position.push(best)
            step_dtz, step_precise = _probe(tb, position, exact_mates)
            if step_dtz is None:  # pragma: no cover - the root's probe needed these tables
                raise NotInTables(f"a table is missing for {position.fen()}")
            line.append({"uci": best.uci(), "san": san, "dtz": step_dtz,
                         "precise_dtz": step_dtz if step_precise else None})
    outcome = position.outcome()  # a mate, or a variant's own end
    winner = None if outcome is None or outcome.winner is None else "wb"[not outcome.winner]
    return {"dtz": dtz, "precise_dtz": dtz if precise else None, "mainline": line,
            "winner": winner}
