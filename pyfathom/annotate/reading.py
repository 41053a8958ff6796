"""Reading games for :mod:`pyfathom.annotate`: python-chess's reader,
which splits the games and reads their headers, and reads in full (with
the probes) any game the C replay (:mod:`pyfathom.annotate.replay`) is not
certain of."""

from __future__ import annotations

from typing import IO, Any, NamedTuple, Optional, TextIO, cast

import chess
import chess.pgn

from pyfathom._bindings import lowlevel as _ll
from pyfathom.annotate.movetext import _mainline_spans, _Spans

_board_dtz = _ll.board_dtz
_FAILED_BELOW = _ll.LEAN_FAILURE_BOUND
_LEAN_FAILED = _ll.LEAN_FAILED

# Each game is split off and its headers read by python-chess's reader, which
# is told to skip the movetext (its fast path).  The mainline's SAN tokens are
# then found in the game's text (:func:`_mainline_spans`, python-chess's own
# tokens) and replayed in C (:func:`_replay`), which also probes the positions
# in the tables.  A game the replay does not take as certain (an illegal or
# ambiguous move, a null move, Chess960, a FEN it does not follow, ...) is read
# again, from the same lines, by python-chess's reader with :class:`_GameReader`,
# which gives python-chess's own answer and errors.


class _LineRecorder:
    """A text handle for python-chess's reader that keeps every line read
    since the last :meth:`take`, so each game is written back as it was."""

    __slots__ = ("_handle", "lines", "chars")

    def __init__(self, handle: IO[str]) -> None:
        self._handle = handle
        self.lines: list[str] = []
        self.chars = 0

    def readline(self) -> str:
        line = self._handle.readline()
        if line:
            self.lines.append(line)
            self.chars += len(line)
        return line

    def take(self) -> list[str]:
        lines = self.lines
        self.lines = []
        return lines


class _LinesAgain:
    """The lines of one game as a text handle, to read them a second time
    exactly as python-chess's reader split them the first time."""

    __slots__ = ("_lines", "_next")

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self._next = 0

    def readline(self) -> str:
        if self._next >= len(self._lines):
            return ""
        self._next += 1
        return self._lines[self._next - 1]


class _Probed(NamedTuple):
    dtz: int
    precise: bool
    clock: int


class _Game:
    """One game's mainline as :func:`analyse` sees it, however it was read:
    the probes from the first position the tables cover, and the boards and
    moves at given positions (a position's index is the number of moves
    played before it)."""

    headers: dict[str, str]
    tokens: list[str]
    """The mainline's SAN tokens, as python-chess's reader met them."""
    count: int
    """Moves in the mainline."""
    first: int
    """Index of the first covered position (-1: none)."""
    probes: list[Optional[_Probed]]
    """One per position from ``first`` on (None where the probe failed)."""
    failures: list[tuple[int, int]]
    """(position index, status) of the failed probes."""
    errors: list[str]
    skip_reason: Optional[str]

    def board_at(self, index: int) -> chess.Board:
        """The position before move ``index`` (a covered one), with no move
        stack, as python-chess's board was there."""
        raise NotImplementedError

    def move_at(self, index: int) -> chess.Move:
        """The mainline move made from position ``index``."""
        raise NotImplementedError

    def turn_at(self, index: int) -> chess.Color:
        """The side to move at position ``index`` (a covered one)."""
        raise NotImplementedError

    def text_spans(self, lines: list[str]) -> Optional[tuple[int, _Spans]]:
        """Where the mainline's moves are in the game's lines, as
        :func:`_mainline_spans` finds them; None when there is no movetext
        or the scan does not find the tokens python-chess's reader parsed."""
        start, spans = _mainline_spans(lines)
        if start < 0 or [s.token for s in spans] != self.tokens:
            return None
        return start, spans


class _GameReader(chess.pgn.BaseVisitor["_GameReader"], _Game):
    """python-chess's reading of a game: visits the mainline (variations are
    skipped), keeps the moves and the move tokens, and probes DTZ of every
    position from the first one the tables cover."""

    def __init__(self, pinned: Any, largest: int) -> None:
        self.pinned = pinned
        self.largest = largest
        self.headers = {}
        self.tokens = []
        self.moves: list[chess.Move] = []
        self.count = 0
        self.first = -1
        self.probes = []
        self.failures = []
        self.errors = []
        self.skip_reason = None
        self.board: Optional[chess.Board] = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> Optional[chess.pgn.SkipType]:
        self.skip_reason = _variant_skip_reason(self.headers)
        return chess.pgn.SKIP if self.skip_reason else None

    def visit_board(self, board: chess.Board) -> None:
        self.board = board

    def begin_variation(self) -> Optional[chess.pgn.SkipType]:
        return chess.pgn.SKIP

    def begin_parse_san(self, board: chess.Board, san: str) -> Optional[chess.pgn.SkipType]:
        self.tokens.append(san)
        return None

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        moves = self.moves
        moves.append(move)
        if self.first < 0:
            if board.castling_rights or board.occupied.bit_count() > self.largest:
                return
            self.first = len(moves) - 1
        self._probe(board, len(moves) - 1)

    def _probe(self, board: chess.Board, index: int) -> None:
        occ = board.occupied_co
        r = _board_dtz(self.pinned, occ[1], occ[0], board.queens, board.rooks, board.bishops,
                       board.knights, board.pawns, board.ep_square, board.turn)
        if r < _FAILED_BELOW:
            self.failures.append((index, r - _LEAN_FAILED))
            self.probes.append(None)
        else:
            self.probes.append(_Probed(r >> 1, r & 1 == 1, board.halfmove_clock))

    def handle_error(self, error: Exception) -> None:
        self.errors.append(str(error) or type(error).__name__)

    def end_game(self) -> None:
        self.count = len(self.moves)
        board = self.board
        if board is None or self.errors or self.skip_reason:
            return
        if type(board) is not chess.Board:  # pragma: no cover (variants are skipped above)
            self.skip_reason = f"variant {board.uci_variant}"
            return
        if self.first < 0:
            if board.castling_rights or board.occupied.bit_count() > self.largest:
                return
            self.first = len(self.moves)
        self._probe(board, len(self.moves))

    def result(self) -> _GameReader:
        return self

    def board_at(self, index: int) -> chess.Board:
        assert self.board is not None
        return _board_at(self.board, self.count, index)

    def move_at(self, index: int) -> chess.Move:
        return self.moves[index]

    def turn_at(self, index: int) -> chess.Color:
        assert self.board is not None
        turn = self.board.turn
        return turn if (self.count - index) % 2 == 0 else not turn


def _board_at(final: chess.Board, moves: int, index: int) -> chess.Board:
    board = final.copy(stack=moves - index)
    for _ in range(moves - index):
        board.pop()
    return board


def _variant_skip_reason(headers: dict[str, str]) -> Optional[str]:
    """Why a game of another variant is skipped (None: standard chess)."""
    if "Variant" not in headers:
        return None
    try:
        board_class = chess.pgn.Headers(headers).variant()
    except ValueError:
        return f"unknown variant {headers['Variant']!r}"
    if board_class is not chess.Board:
        return f"variant {headers['Variant']!r}: the tables are for standard chess"
    return None


class _HeaderReader(chess.pgn.BaseVisitor["_HeaderReader"]):
    """Keeps a game's headers and has python-chess's reader skip its
    movetext (the reader's fast path: it only looks for the game's end)."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.skip_reason: Optional[str] = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.headers[tagname] = tagvalue

    def end_headers(self) -> chess.pgn.SkipType:
        self.skip_reason = _variant_skip_reason(self.headers)
        return chess.pgn.SKIP

    def result(self) -> _HeaderReader:
        return self


def _read_with_python_chess(pinned: Any, largest: int, lines: list[str]) -> _GameReader:
    """The game read from its lines by python-chess's reader."""
    reader = _GameReader(pinned, largest)
    try:
        chess.pgn.read_game(cast(TextIO, _LinesAgain(lines)), Visitor=lambda: reader)
    except Exception as e:  # python-chess gave up on this game's text
        reader.errors.append(f"{type(e).__name__}: {e}")
    return reader


_REPLAYS_CHESS = chess.__version__.split(".")[:2] == ["1", "11"]
"""The C replay follows python-chess 1.11's reader and SAN rules (1.11.2 is
the tests' oracle); with any other python-chess, every game is read by it."""
